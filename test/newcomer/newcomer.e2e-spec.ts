import { randomUUID } from 'node:crypto';
import { Module, type LoggerService } from '@nestjs/common';
import { RESTAP_MIGRATIONS, RestapModule } from 'nestjs-restap';
import { useTestDatabase } from '../support/test-database';
import type { RunningApp } from '../support/sample-app';
import { connectClient } from '../mcp/mcp-clients';
import { RestapClient, RestapError } from 'restap-client';
import { bootError } from '../foundation/support/boot';
import { openFixtureDatabase } from '../foundation/support/fixture-database';
import { Public, startNewcomerApp } from './newcomer.app';

jest.setTimeout(120_000);

const MCP_INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } };
const A2A_SEND = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } };

/** Status of each route the module owns, and of the host's own guarded route, without credentials. */
async function statuses(url: string): Promise<Record<string, number>> {
  const json = { 'Content-Type': 'application/json' };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) }).then(async (r) => (await r.arrayBuffer(), r.status));
  return {
    talk: await post('/talk', { message: 'hi' }),
    news: await fetch(`${url}/news`).then(async (r) => (await r.arrayBuffer(), r.status)),
    mcp: await post('/mcp', MCP_INIT, { Accept: 'application/json, text/event-stream' }),
    a2a: await post('/a2a', { ...A2A_SEND, params: { message: { ...A2A_SEND.params.message, messageId: randomUUID() } } }, { 'A2A-Version': '1.0' }),
    hostRoute: await fetch(`${url}/orders`).then(async (r) => (await r.arrayBuffer(), r.status)),
  };
}

describe('issue 40 item 5: routeDecorators: [Public()] exempts the module\'s routes from a host\'s global guard that honours @Public()', () => {
  const db = useTestDatabase();

  it('without routeDecorators the host guard refuses /talk, /news, /mcp and /a2a (401), as it refuses the host\'s own route', async () => {
    const app = await startNewcomerApp(db.target, { hostGuard: true });
    try {
      expect(await statuses(app.url)).toEqual({ talk: 401, news: 401, mcp: 401, a2a: 401, hostRoute: 401 });
    } finally {
      await app.close();
    }
  });

  it('with routeDecorators: [Public()] /talk, /news, /mcp and /a2a answer 200 without credentials; the host\'s own routes stay guarded', async () => {
    const app = await startNewcomerApp(db.target, { hostGuard: true, restap: { routeDecorators: [Public()] } });
    try {
      expect(await statuses(app.url)).toEqual({ talk: 200, news: 200, mcp: 200, a2a: 200, hostRoute: 401 });
      // a whole MCP session (initialize, tools/list) through the official client, no Authorization header
      const client = await connectClient('2.x auto', `${app.url}/mcp`);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await app.close();
    }
  });

  it('the exemption belongs to that app only: an app started afterwards without it is guarded again (the doors\' classes stay bare)', async () => {
    const app = await startNewcomerApp(db.target, { hostGuard: true });
    try {
      expect(await statuses(app.url)).toEqual({ talk: 401, news: 401, mcp: 401, a2a: 401, hostRoute: 401 });
    } finally {
      await app.close();
    }
  });
});

describe('issue 40 item 3: a route\'s built-in pipes decide its parameters\' schemas in discovery and MCP', () => {
  const db = useTestDatabase();
  let app: RunningApp;
  beforeAll(async () => {
    app = await startNewcomerApp(db.target);
  });
  afterAll(() => app?.close());

  it('catalog: ParseIntPipe → integer, ParseUUIDPipe → uuid, ParseEnumPipe → enum, ParseBoolPipe → boolean, ParseArrayPipe → array of its items', async () => {
    const catalog = (await (await fetch(`${app.url}/.well-known/restap.json`)).json()) as { capabilities: Array<{ id: string; parameters?: Array<{ name: string; schema: unknown }> }> };
    const params = (id: string) => Object.fromEntries((catalog.capabilities.find((c) => c.id === id)?.parameters ?? []).map((p) => [p.name, p.schema]));
    expect(params('orders.get')).toEqual({ id: { type: 'integer' } });
    expect(params('orders.by_ref')).toEqual({
      ref: { type: 'string', format: 'uuid' },
      colour: { type: 'string', enum: ['red', 'green'] },
      express: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'number' } },
    });
  });

  it('MCP tools/list: the ParseIntPipe parameter is integer, so 1.5 is refused by the schema, not by the pipe; 7 is answered', async () => {
    const client = await connectClient('2.x auto', `${app.url}/mcp`);
    try {
      const tool = (await client.listTools()).tools.find((t) => /orders.get$/.test(t.name.replace('_', '.')));
      expect((tool?.inputSchema as { properties: Record<string, unknown> }).properties.id).toMatchObject({ type: 'integer' });
      const ok = await client.callTool({ name: tool!.name, arguments: { id: 7 } });
      expect(ok.isError).toBeFalsy();
      expect(JSON.stringify(ok)).toContain('7');
      const refused = await client.callTool({ name: tool!.name, arguments: { id: 1.5 } }).catch((e: Error) => ({ isError: true, thrown: e.message }));
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).not.toContain('numeric string is expected'); // ParseIntPipe's message: never reached
      expect(JSON.stringify(refused)).toMatch(/integer/);
    } finally {
      await client.close();
    }
  });
});

describe('issue 40 item 6: the same failure has the same snake_case code on every door', () => {
  const db = useTestDatabase();
  let app: RunningApp;
  beforeAll(async () => {
    app = await startNewcomerApp(db.target);
  });
  afterAll(() => app?.close());

  it('a host route\'s NotFoundException (Nest\'s default body, error "Not Found") is not_found in the client and over MCP', async () => {
    const client = await RestapClient.discover(app.url);
    const error = await client.call('orders.missing', undefined, { params: { id: 3 } }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RestapError);
    expect(error).toMatchObject({ code: 'not_found', status: 404, message: 'No order 3.' });
    const mcp = await connectClient('2.x auto', `${app.url}/mcp`);
    try {
      const result = await mcp.callTool({ name: 'orders_missing', arguments: { id: 3 } });
      expect(result.isError).toBe(true);
      expect((result._meta as Record<string, unknown>)['io.restap/error']).toMatchObject({ error: 'not_found', status: 404 });
    } finally {
      await mcp.close();
    }
  });
});

/** Collects what the app logs. */
function capture(): LoggerService & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, log: () => undefined, error: () => undefined, warn: (m: unknown) => void warnings.push(String(m)) };
}

describe('issue 40 item 2: without a ValidationPipe the start-up names the unvalidated capability', () => {
  const db = useTestDatabase();

  it('no ValidationPipe: one warning naming orders.create and its DTO, and how to add the pipe', async () => {
    const logger = capture();
    const app = await startNewcomerApp(db.target, { validationPipe: false, logger });
    await app.close();
    const warnings = logger.warnings.filter((w) => w.includes('ValidationPipe'));
    expect(warnings).toEqual([expect.stringContaining("'orders.create' (CreateOrderDto)")]);
    expect(warnings[0]).toContain('app.useGlobalPipes(new ValidationPipe');
    expect(warnings[0]).not.toContain('orders.get'); // a ParseIntPipe parameter is validated by its pipe
  });

  it('with app.useGlobalPipes(new ValidationPipe()) there is no such warning', async () => {
    const logger = capture();
    const app = await startNewcomerApp(db.target, { logger });
    await app.close();
    expect(logger.warnings.filter((w) => w.includes('ValidationPipe'))).toEqual([]);
  });
});

describe('issue 40 item 7: TypeORM synchronize: true with the module\'s entities is refused with a message', () => {
  it('start-up fails naming synchronize, the RESTAP tables and the fix', async () => {
    const db = await openFixtureDatabase();
    try {
      @Module({ imports: [db.typeorm({ autoLoadEntities: true, synchronize: true, migrations: RESTAP_MIGRATIONS, migrationsRun: true }), RestapModule.forRoot({ agent: { name: 'Sync' }, talk: false })] })
      class SyncModule {}
      const error = await bootError(SyncModule);
      expect(error?.message).toMatch(/synchronize is on .*restap_sessions.*Set synchronize: false and run RESTAP_MIGRATIONS/);
    } finally {
      await db.close();
    }
  });
});

describe('issue 40 item 4: every path under app.setGlobalPrefix(\'api\'), as docs/module.md\'s table says', () => {
  const db = useTestDatabase();

  it('talk, news, capabilities and the playground follow the prefix; the well-known documents stay; MCP and A2A take absolute paths that may include it', async () => {
    const app = await startNewcomerApp(db.target, {
      restap: { playground: { enabled: true }, mcp: { enabled: true, path: '/api/mcp' }, a2a: { enabled: true } },
      configure: (nest) => nest.setGlobalPrefix('api'),
    });
    try {
      const catalog = (await (await fetch(`${app.url}/.well-known/restap.json`)).json()) as {
        capabilities: Array<{ id: string; endpoint: string }>; protocols: Record<string, { endpoint?: string }>;
      };
      const endpoint = (id: string) => catalog.capabilities.find((c) => c.id === id)?.endpoint;
      expect([endpoint('talk'), endpoint('news'), endpoint('orders.get')]).toEqual(['/api/talk', '/api/news', '/api/orders/{id}']);
      expect(catalog.protocols.mcp?.endpoint).toBe('/api/mcp');
      expect(catalog.protocols.a2a?.endpoint).toBe('/a2a');
      const status = async (path: string, init?: RequestInit) => (await fetch(`${app.url}${path}`, init)).status;
      expect(await status('/api/news')).toBe(200);
      expect(await status('/news')).toBe(404);
      expect(await status('/api/playground')).toBe(200);
      expect(await status('/.well-known/agent-card.json')).toBe(200);
      const mcp = await connectClient('2.x auto', `${app.url}/api/mcp`);
      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
      await mcp.close();
    } finally {
      await app.close();
    }
  });
});
