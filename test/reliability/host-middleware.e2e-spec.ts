import { Body, Controller, Injectable, Module, Post, type MiddlewareConsumer, type NestMiddleware, type NestModule } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { IsString } from 'class-validator';
import { Capability } from 'nestjs-restap';
import { useTestDatabase } from '../support/test-database';
import { startReliabilityApp, type ReliabilityApp, type ReliabilityAppOptions } from './support/reliability-app';

// Issue 32, item 1: every door sits behind the host's own middleware, exactly as a controller
// route does — with `app.use()` in main.ts and with a Nest `MiddlewareConsumer.forRoutes('*')`.
jest.setTimeout(90_000);

const KEY = 'host-middleware-key';

/** What the host's auth middleware answers without its key (its own shape, not the module's). */
function hostAuth(req: Request, res: Response, next: NextFunction): void {
  if (req.headers['x-host-key'] === KEY) return next();
  res.status(401).json({ error: 'host_says_no', message: 'The host middleware wants its key.' });
}

@Injectable()
class HostAuthMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    hostAuth(req, res, next);
  }
}

@Module({})
class HostAuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HostAuthMiddleware).forRoutes('*');
  }
}

class StockDto {
  @IsString()
  sku!: string;
}

/** A state-changing capability: what must never run without the host's credentials. */
@Controller('stock')
class StockController {
  static restocks = 0;

  @Post('restock')
  @Capability({ id: 'stock.restock', title: 'Restock an item' })
  restock(@Body() body: StockDto): { sku: string; restocks: number } {
    StockController.restocks++;
    return { sku: body.sku, restocks: StockController.restocks };
  }
}

const json = { 'Content-Type': 'application/json' };
const mcpInitialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const mcpCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stock_restock', arguments: { sku: 'widget' } } };
const a2aCall = {
  jsonrpc: '2.0',
  id: 3,
  method: 'SendMessage',
  params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { capability: 'stock.restock', arguments: { sku: 'widget' } } }] } },
};

function requests(url: string, headers: Record<string, string>) {
  const mcpHeaders = { ...json, Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', ...headers };
  return {
    talk: () => fetch(`${url}/talk`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify({ message: 'hi' }) }),
    news: () => fetch(`${url}/news`, { headers }),
    mcpInitialize: () => fetch(`${url}/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(mcpInitialize) }),
    mcpCall: () => fetch(`${url}/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(mcpCall) }),
    a2a: () => fetch(`${url}/a2a`, { method: 'POST', headers: { ...json, 'A2A-Version': '1.0', ...headers }, body: JSON.stringify(a2aCall) }),
    playground: () => fetch(`${url}/playground`, { headers }),
  };
}

const doors: ReliabilityAppOptions['restap'] = { a2a: { enabled: true }, mcp: { enabled: true }, playground: { enabled: true } };

describe.each([
  ['app.use() in main.ts', { configure: (app) => app.use(hostAuth) }],
  ['MiddlewareConsumer.forRoutes(\'*\')', { imports: [HostAuthModule] }],
] as Array<[string, ReliabilityAppOptions]>)('a host whose auth is %s', (_name, host) => {
  const db = useTestDatabase();
  let app: ReliabilityApp;
  beforeAll(async () => {
    app = await startReliabilityApp(db.target, { ...host, controllers: [StockController], restap: doors });
  });
  afterAll(() => app?.close());

  it('refuses /talk, /news, /mcp, /a2a and the playground without its credentials: its own answer, nothing runs', async () => {
    const before = StockController.restocks;
    const without = requests(app.url, {});
    for (const send of [without.talk, without.news, without.mcpInitialize, without.mcpCall, without.a2a, without.playground]) {
      const res = await send();
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: 'host_says_no', message: expect.any(String) } });
    }
    expect(StockController.restocks).toBe(before);
    expect(app.brain.calls).toBe(0);
  });

  it('with its credentials every door serves, and the capability runs through MCP and A2A', async () => {
    const before = StockController.restocks;
    const withKey = requests(app.url, { 'X-Host-Key': KEY });
    expect((await withKey.talk()).status).toBe(200);
    expect((await withKey.news()).status).toBe(200);
    expect((await withKey.mcpInitialize()).status).toBe(200);
    const called = await withKey.mcpCall();
    expect(called.status).toBe(200);
    expect(await called.text()).toContain('widget');
    const sent = await withKey.a2a();
    expect(sent.status).toBe(200);
    expect(JSON.stringify(await sent.json())).toContain('TASK_STATE_COMPLETED');
    expect((await withKey.playground()).status).toBe(200);
    expect(StockController.restocks).toBe(before + 2);
  });

  it('the discovery documents stay public, as the catalog always was: /.well-known/restap.json and the agent card', async () => {
    expect((await fetch(`${app.url}/.well-known/restap.json`)).status).toBe(200);
    expect((await fetch(`${app.url}/.well-known/agent-card.json`)).status).toBe(200);
  });
});
