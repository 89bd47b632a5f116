import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomUUID } from 'node:crypto';
import { RestapModule } from 'nestjs-restap';
import { DatabaseModule } from '../../apps/sample-agent/src/database/database.module';
import { configureToolsFixture, OrdersController } from '../fixtures/tools-app';
import { listen, type RunningApp } from '../support/sample-app';
import { useTestDatabase } from '../support/test-database';

jest.setTimeout(120_000);

interface RpcTask {
  status?: { state?: string; message?: { parts?: Array<{ data?: unknown; text?: string }> } };
  artifacts?: Array<{ parts?: Array<{ data?: unknown }> }>;
}

/**
 * Issue 33: an A2A capability call goes through CapabilityTools, as MCP's tools/call and the
 * model's tools do: the same path-parameter check and the same `capabilityTimeoutMs`.
 */
describe('A2A capability calls through CapabilityTools (issue 33)', () => {
  const db = useTestDatabase();
  let agent: RunningApp;

  beforeAll(async () => {
    @Module({
      imports: [DatabaseModule.forRoot(db.target), RestapModule.forRoot({ agent: { name: 'A2A tools agent' }, talk: false, a2a: { enabled: true }, capabilityTimeoutMs: 500 })],
      controllers: [OrdersController],
    })
    class A2aToolsModule {}
    const app = await NestFactory.create<NestExpressApplication>(A2aToolsModule, { logger: false });
    configureToolsFixture(app);
    agent = await listen(app);
  });
  afterAll(() => agent?.close());

  async function call(capability: string, args: unknown): Promise<RpcTask> {
    const res = await fetch(`${agent.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { capability, arguments: args } }] } } }),
    });
    const body = (await res.json()) as { result?: { task?: RpcTask }; error?: unknown };
    expect(body.error).toBeUndefined();
    return body.result?.task as RpcTask;
  }

  const failureOf = (task: RpcTask): unknown => task.status?.message?.parts?.find((p) => p.data !== undefined)?.data;

  it('a call past capabilityTimeoutMs fails 504 tool_timeout', async () => {
    const task = await call('orders.slow', { ms: 3000 });
    expect(task.status?.state).toBe('TASK_STATE_FAILED');
    expect(failureOf(task)).toMatchObject({ status: 504, error: 'tool_timeout' });
  });

  it('a call without its path parameter fails 400 invalid_arguments, before the route runs', async () => {
    const task = await call('orders.slow', {});
    expect(task.status?.state).toBe('TASK_STATE_FAILED');
    expect(failureOf(task)).toMatchObject({ status: 400, error: 'invalid_arguments', message: "orders.slow needs 'ms'." });
  });

  it('a capability not offered to models (tool: false) is still an A2A skill, and a quick call completes', async () => {
    expect((await call('orders.internal', {})).status?.state).toBe('TASK_STATE_COMPLETED');
    const quick = await call('orders.slow', { ms: 10 });
    expect(quick.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(quick.artifacts?.[0]?.parts?.[0]?.data).toEqual({ waited: 10 });
  });
});
