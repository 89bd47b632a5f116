import { useSampleAgent } from '../support/sample-app';
import { useTestDatabase } from '../support/test-database';
import { startReliabilityApp, type ReliabilityApp } from '../reliability/support/reliability-app';
import { API_KEY, clientFor, withKey } from './a2a-support';

jest.setTimeout(90_000);

const CARD = '/.well-known/agent-card.json';
const V1 = { 'A2A-Version': '1.0' };
const SKILLS = ['talk', 'text.echo', 'text.reverse', 'notes.create', 'notes.list', 'notes.digest', 'notes.get', 'notes.delete'];

/** GetExtendedAgentCard over JSON-RPC (1.0, or 0.3's name without the A2A-Version header). */
function rpcCard(url: string, headers: Record<string, string> = {}, legacy = false) {
  return fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(legacy ? {} : V1), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: legacy ? 'agent/getAuthenticatedExtendedCard' : 'GetExtendedAgentCard', params: {} }),
  });
}

/** The HTTP+JSON binding's extended card route. */
const restCard = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/a2a/rest/extendedAgentCard`, { headers: { ...V1, ...headers } });

describe('A2A door: the authenticated extended card (issue 38, item 4; A2A 1.0 3.1.11, 13.3)', () => {
  describe('the sample with an API key (its guard checks the key; the card declares a bearer scheme)', () => {
    const agent = useSampleAgent({ apiKey: API_KEY });

    it('the public card says capabilities.extendedAgentCard: true, since it declares how to authenticate', async () => {
      const card = await (await fetch(`${agent.url}${CARD}`, { headers: V1 })).json();
      expect(card.capabilities.extendedAgentCard).toBe(true);
      // 0.3 clients read the same in 0.3's field.
      expect((await (await fetch(`${agent.url}${CARD}`)).json()).supportsAuthenticatedExtendedCard).toBe(true);
    });

    it('the official client gets it over JSON-RPC with the key: every skill the caller may use, at this origin\'s interfaces', async () => {
      // Client.getAgentCard() fetches the extended card when the public card offers one.
      const card = await (await clientFor(agent.url)).getAgentCard(withKey());
      expect(card.skills.map((skill) => skill.id)).toEqual(SKILLS);
      expect(card.capabilities?.extendedAgentCard).toBe(true);
      expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.url}`)).toContain(`JSONRPC ${agent.url}/a2a`);
    });

    it('the HTTP+JSON binding serves the same card at GET /extendedAgentCard', async () => {
      const res = await restCard(agent.url, { Authorization: `Bearer ${API_KEY}` });
      expect(res.status).toBe(200);
      const card = await res.json();
      expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual(SKILLS);
      expect(card.supportedInterfaces[1]).toEqual({ url: `${agent.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
    });

    it('without the key: 401 unauthorized from the host\'s guard on both bindings, never a 500', async () => {
      for (const res of [await rpcCard(agent.url), await restCard(agent.url)]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
      }
    });
  });

  describe('a host whose guards let anonymous callers through, with an API-key scheme declared on the card', () => {
    const db = useTestDatabase();
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target, { restap: { a2a: { enabled: true, securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } } } });
    });
    afterAll(() => app?.close());

    it('spec 13.3 "MUST require authentication": a caller without credentials gets 401 unauthorized with a challenge for the card\'s scheme, on JSON-RPC 1.0 and 0.3 and on HTTP+JSON', async () => {
      for (const res of [await rpcCard(app.url), await rpcCard(app.url, {}, true), await restCard(app.url), await fetch(`${app.url}/a2a/rest/v1/card`)]) {
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="a2a", in="header", name="X-API-Key"');
        expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.stringContaining('securitySchemes (key)') });
      }
    });

    it('a caller presenting credentials gets the card (the host\'s guards are what check them)', async () => {
      const res = await rpcCard(app.url, { 'X-API-Key': 'some-key' });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { name: 'Reliability fixture', capabilities: { extendedAgentCard: true } } });
      expect(body.result.supportedInterfaces[0]).toEqual({ url: `${app.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    });

    it('the public card and the other methods stay open to anonymous callers (only the extended card needs authentication)', async () => {
      expect((await fetch(`${app.url}${CARD}`, { headers: V1 })).status).toBe(200);
      const res = await fetch(`${app.url}/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...V1 }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }) });
      expect(res.status).toBe(200);
      expect((await res.json()).result).toBeDefined();
    });
  });

  describe('a host with no authentication configured', () => {
    const db = useTestDatabase();
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target, { restap: { a2a: { enabled: true } } });
    });
    afterAll(() => app?.close());

    it('spec 3.3.4: the public card does not offer an extended card, and asking for one is UnsupportedOperationError (-32004 / HTTP+JSON 400), not a 500', async () => {
      const card = await (await fetch(`${app.url}${CARD}`, { headers: V1 })).json();
      expect(card.capabilities.extendedAgentCard).toBeFalsy();
      const rpc = await rpcCard(app.url, { 'X-API-Key': 'anything' });
      expect(rpc.status).toBe(200);
      expect((await rpc.json()).error).toMatchObject({ code: -32004 });
      const rest = await restCard(app.url, { 'X-API-Key': 'anything' });
      expect(rest.status).toBe(400);
    });
  });
});
