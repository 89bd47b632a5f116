import { randomUUID } from 'node:crypto';
import { Injectable, Module, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { RestapModule, Talk, type RestapModuleOptions, type TalkChunk, type TalkContext } from 'nestjs-restap';
import { DatabaseModule } from '../../apps/sample-agent/src/database/database.module';
import type { DatabaseTarget } from '../../apps/sample-agent/src/database/database.options';
import { listen, type RunningApp } from '../support/sample-app';
import { useTestDatabase } from '../support/test-database';

jest.setTimeout(60_000);

/** Says how many earlier turns it saw, streams a status and an artifact, and fails on "fail <text>". */
@Injectable()
class HostBrain {
  @Talk()
  async *answer(ctx: TalkContext): AsyncGenerator<string | TalkChunk> {
    if (ctx.message.startsWith('fail ')) throw new Error(`secret detail ${ctx.sessionId ?? ''}`);
    if (ctx.message === 'use the page') {
      // A hand-written handler that calls a frontend tool and would go on: the core ends the turn.
      yield { event: 'tool.start', id: 'call_page', name: 'highlight', arguments: { id: 'x' } };
      const result = await ctx.tools.call('highlight', { id: 'x' }, { id: 'call_page' });
      yield `Handed over: ${result.ok ? 'no' : result.error}.`;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      yield ' Never sent.';
      return;
    }
    yield { event: 'status', message: 'Thinking' };
    yield `Seen ${ctx.history.length} earlier messages.`;
    yield { event: 'artifact', name: 'note', text: 'n' };
  }
}

async function startHost(database: DatabaseTarget, options: Partial<RestapModuleOptions>, logger: LoggerService | false = false): Promise<RunningApp> {
  @Module({
    imports: [DatabaseModule.forRoot(database), RestapModule.forRootAsync({ useFactory: () => ({ agent: { name: 'AG-UI host' }, ...options }), doors: ['agui'] })],
    providers: [HostBrain],
  })
  class HostModule {}
  const app = await NestFactory.create<NestExpressApplication>(HostModule, { logger });
  app.setGlobalPrefix('api');
  return listen(app);
}

async function run(agent: HttpAgent, text: string): Promise<Array<BaseEvent & Record<string, unknown>>> {
  const events: Array<BaseEvent & Record<string, unknown>> = [];
  agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event as BaseEvent & Record<string, unknown>) });
  return events;
}

describe('The AG-UI door in a host app (issue 39: forRootAsync, own path, custom chunks, rate limit, secrecy)', () => {
  const db = useTestDatabase();
  let host: RunningApp;
  const logged: string[] = [];
  const logger: LoggerService = {
    log: () => undefined,
    warn: (m: unknown) => void logged.push(String(m)),
    error: (m: unknown, ...rest: unknown[]) => void logged.push([m, ...rest].map(String).join(' ')),
  };
  beforeAll(async () => {
    host = await startHost(db.target, { agui: { enabled: true, path: '/agent/ag-ui' }, rateLimit: { limit: 6, ttlMs: 60_000 } }, logger);
  });
  afterAll(() => host?.close());

  it('item 1: served at agui.path as given (no global prefix), advertised so in the catalog', async () => {
    const catalog = await (await fetch(`${host.url}/.well-known/restap.json`)).json();
    expect(catalog.protocols).toEqual({ agui: { available: true, endpoint: '/agent/ag-ui' } });
    const agent = new HttpAgent({ url: `${host.url}/agent/ag-ui` });
    const first = await run(agent, 'Hello');
    expect(first.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join('')).toBe('Seen 0 earlier messages.');
    const second = await run(agent, 'Again');
    expect(second.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join('')).toBe('Seen 2 earlier messages.');
  });

  it('item 4: a hand-written handler that calls a frontend tool is ended by the core once the call is handed over: RUN_FINISHED names it pending', async () => {
    const agent = new HttpAgent({ url: `${host.url}/agent/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'use the page' });
    const events: Array<BaseEvent & Record<string, unknown>> = [];
    const started = Date.now();
    await agent.runAgent(
      { tools: [{ name: 'highlight', description: 'Highlights an element of the page', parameters: { type: 'object', properties: { id: { type: 'string' } } } }] },
      { onEvent: ({ event }) => void events.push(event as BaseEvent & Record<string, unknown>) },
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join('')).toBe('Handed over: client_tool_pending.');
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success', pendingToolCallIds: ['call_page'] } });
  });

  it('status and artifact chunks arrive as CUSTOM events restap.status / restap.artifact', async () => {
    const events = await run(new HttpAgent({ url: `${host.url}/agent/ag-ui` }), 'Hi');
    const custom = events.filter((e) => e.type === EventType.CUSTOM);
    expect(custom).toEqual([
      expect.objectContaining({ name: 'restap.status', value: { message: 'Thinking' } }),
      expect.objectContaining({ name: 'restap.artifact', value: { name: 'note', text: 'n' } }),
    ]);
    expect(events.at(-1)!.type).toBe(EventType.RUN_FINISHED);
  });

  it('item 6: a handler that throws ends the run with RUN_ERROR agent_error; the log never shows the threadId', async () => {
    const threadId = randomUUID();
    const res = await fetch(`${host.url}/agent/ag-ui`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ threadId, runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'fail now' }] }),
    });
    const events = (await res.text()).split('\n\n').filter((b) => b.startsWith('data: ')).map((b) => JSON.parse(b.slice(6)));
    expect(events.at(-1)).toEqual({ type: EventType.RUN_ERROR, code: 'agent_error', message: expect.not.stringContaining('secret detail') });
    expect(logged.join('\n')).toContain('secret detail [session_id]');
    expect(logged.join('\n')).not.toContain(threadId);
  });

  it('item 6: the rate limit counts AG-UI runs on a bucket of their own: 429 JSON with Retry-After past it', async () => {
    let last: Response | undefined;
    for (let i = 0; i < 8; i++) {
      last = await fetch(`${host.url}/agent/ag-ui`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      if (last.status === 429) break;
      await last.body?.cancel();
    }
    expect(last!.status).toBe(429);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await last!.json()).error).toBe('too_many_requests');
  });
});
