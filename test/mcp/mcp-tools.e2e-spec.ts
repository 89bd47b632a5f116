import { CATALOG_PATH } from 'nestjs-restap';
import { useTestDatabase } from '../support/test-database';
import type { RunningApp } from '../support/sample-app';
import { FIXTURE_API_KEY } from '../fixtures/tools-app';
import { callWithProgress, CLIENT_KINDS, connectClient, type AnyClient } from './mcp-clients';
import { startMcpFixture, TALK_PIECES } from './mcp-fixture-app';

// Issue 15, items 2-4: tools = capabilities, tools/call through the invoker, talk with progress.
jest.setTimeout(60_000);

type Catalog = { capabilities: Array<{ id: string; method: string; input_schema?: Record<string, unknown>; output_schema?: Record<string, unknown>; parameters?: Array<{ name: string; required: boolean; schema: Record<string, unknown> }> }> };

describe('MCP tools on a host app (guards, pipes, filters through the invoker)', () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let catalog: Catalog;
  const warnings: string[] = [];
  const logger = { log: () => undefined, error: () => undefined, warn: (message: unknown) => void warnings.push(String(message)) };
  beforeAll(async () => {
    app = await startMcpFixture(db.target, {}, logger);
    catalog = await (await fetch(`${app.url}${CATALOG_PATH}`)).json();
  });
  afterAll(() => app?.close());

  it('an output DTO without class-validator or swagger metadata is named in a startup warning saying what to add', () => {
    const warning = warnings.find((w) => w.includes('OrderDto'));
    expect(warning).toMatch(/'orders\.create'.*output class OrderDto.*@ApiProperty\(\)/);
  });

  it('a 2026-07-28 tools/call whose Mcp-Name header names another tool than its body is refused, not served', async () => {
    // The door's server for a tools/call holds only the tool the headers name: the SDK must refuse a header the body contradicts.
    const call = (name: string, header: string) =>
      fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': header, 'x-api-key': FIXTURE_API_KEY },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: { id: 5 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
        }),
      });
    const served = await call('orders_get', 'orders_get');
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('tea');
    const refused = await call('orders_get', 'orders_create');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { message: expect.stringContaining('Mcp-Name') } });
  });

  describe.each(CLIENT_KINDS)('%s client', (kind) => {
    let client: AnyClient;
    let keyed: AnyClient;
    beforeAll(async () => {
      client = await connectClient(kind, `${app.url}/mcp`);
      keyed = await connectClient(kind, `${app.url}/mcp`, { 'X-API-Key': FIXTURE_API_KEY });
    });
    afterAll(async () => {
      await client?.close();
      await keyed?.close();
    });

    it('offers every capability but tool: false, with path and query parameters folded into inputSchema', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['orders_get', 'orders_create', 'orders_crash', 'talk', 'news_post']));
      expect(names).not.toContain('orders_internal');
      const get = tools.find((t) => t.name === 'orders_get')!;
      const entry = catalog.capabilities.find((c) => c.id === 'orders.get')!;
      expect(get.inputSchema).toEqual({
        type: 'object',
        properties: Object.fromEntries(entry.parameters!.map((p) => [p.name, p.schema])),
        required: ['id'],
      });
      expect(get.annotations).toEqual({ title: 'Read an order', readOnlyHint: true });
      const create = tools.find((t) => t.name === 'orders_create')!;
      expect(create.inputSchema).toEqual(catalog.capabilities.find((c) => c.id === 'orders.create')!.input_schema);
      for (const tool of tools.filter((t) => t._meta)) {
        const id = (tool._meta as Record<string, string>)['io.restap/capability'];
        expect(tool.outputSchema).toEqual(catalog.capabilities.find((c) => c.id === id)!.output_schema);
      }
      expect(JSON.stringify(tools)).not.toContain('draft-07');
    });

    it('a guarded capability is refused without the header its guard wants, answered with it', async () => {
      const refused = await client.callTool({ name: 'orders_get', arguments: { id: 5 } });
      expect(refused.isError).toBe(true);
      expect(refused._meta).toMatchObject({ 'io.restap/error': { error: 'unauthorized', status: 401 } });
      const answered = await keyed.callTool({ name: 'orders_get', arguments: { id: 5, verbose: 'true' } });
      expect(answered.isError).toBeFalsy();
      expect(JSON.parse((answered.content as Array<{ text: string }>)[0].text)).toEqual({ id: 5, item: 'tea', quantity: 2, verbose: true });
    });

    it('concurrent callers with different credentials each get their own answer: no headers shared between requests', async () => {
      // Interleaved in flight: every tools/call is judged by its own request's headers, never another's.
      const calls = Array.from({ length: 24 }, (_, i) => {
        const withKey = i % 2 === 1;
        return (withKey ? keyed : client).callTool({ name: 'orders_get', arguments: { id: i + 1 } }).then((result) => ({ withKey, i, result }));
      });
      for (const { withKey, i, result } of await Promise.all(calls)) {
        if (withKey) {
          expect(result.isError).toBeFalsy();
          expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toMatchObject({ id: i + 1 });
        } else {
          expect(result.isError).toBe(true);
          expect(result._meta).toMatchObject({ 'io.restap/error': { error: 'unauthorized', status: 401 } });
        }
      }
    });

    it('a ValidationPipe or schema refusal and a thrown error are tool errors, the internal message never shown', async () => {
      const invalid = await client.callTool({ name: 'orders_create', arguments: { item: 'tea', quantity: 99 } });
      expect(invalid.isError).toBe(true);
      expect((invalid.content as Array<{ text: string }>)[0].text).toMatch(/quantity/);
      const crashed = await client.callTool({ name: 'orders_crash', arguments: { item: 'tea', quantity: 1 } });
      expect(crashed.isError).toBe(true);
      const text = JSON.stringify(crashed);
      expect(text).not.toContain('hunter2');
      expect(text).not.toMatch(/\bat \S+ \(/);
    });

    it('issue 38 item 9: arguments the input schema refuses are the SDK\'s tool error, with our io.restap/error code (invalid_arguments, 400)', async () => {
      const wrong = await client.callTool({ name: 'orders_create', arguments: { item: 5, quantity: 1 } });
      expect(wrong.isError).toBe(true);
      expect((wrong.content as Array<{ text: string }>)[0].text).toMatch(/^Input validation error: Invalid arguments for tool orders_create: .*item/);
      expect((wrong._meta as Record<string, unknown> | undefined)?.['io.restap/error']).toEqual({ error: 'invalid_arguments', status: 400 });
      const missing = await client.callTool({ name: 'orders_create', arguments: {} });
      expect((missing._meta as Record<string, unknown> | undefined)?.['io.restap/error']).toEqual({ error: 'invalid_arguments', status: 400 });
    });

    it('an unknown tool is a tool error or a JSON-RPC error naming it, never a crash', async () => {
      const outcome = await client.callTool({ name: 'orders_nope', arguments: {} }).then((r) => JSON.stringify(r), (e: Error) => e.message);
      expect(outcome).toMatch(/orders_nope/);
    });

    it('talk streams its text deltas as progress notifications when asked, and the reply is their sum', async () => {
      const updates: Array<{ progress: number; message?: string }> = [];
      const result = await callWithProgress(kind, client, { name: 'talk', arguments: { message: 'hi' } }, (p) => updates.push(p));
      const out = result.structuredContent as { reply: string; session_id: string };
      expect(out.reply).toBe(`${TALK_PIECES.join('')} (history: 0)`);
      expect(updates.map((u) => u.message).join('')).toBe(out.reply);
      for (let i = 1; i < updates.length; i++) expect(updates[i].progress).toBeGreaterThan(updates[i - 1].progress);
      const next = await client.callTool({ name: 'talk', arguments: { message: 'again', session_id: out.session_id } });
      expect((next.structuredContent as { reply: string }).reply).toMatch(/\(history: 2\)$/);
    });

    it('talk refuses a malformed session_id as a tool error', async () => {
      const result = await client.callTool({ name: 'talk', arguments: { message: 'hi', session_id: 'short' } });
      expect(result.isError).toBe(true);
    });
  });
});
