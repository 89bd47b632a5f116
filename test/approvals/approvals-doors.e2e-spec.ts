import { TaskState } from '@a2a-js/sdk';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { readAll } from '../fixtures/news-http';
import { CLIENT_KINDS, connectClient, type AnyClient } from '../mcp/mcp-clients';
import { asTask, clientFor, data, dataOf, sendParams, userMessage } from '../a2a/a2a-support';

// Issue 35 — the same approval on the other doors: an MCP direct tools/call and an A2A capability
// call of a gated capability wait for a person instead of running, on either replica. Two sample
// agents on one PostgreSQL with RESTAP_REQUIRE_APPROVAL=text.reverse; text.reverse publishes a
// job.completed news item each time it really runs.
jest.setTimeout(90_000);

const KEY = 'approval-doors-key-35';
const AUTH = { Authorization: `Bearer ${KEY}` };
const APPROVAL = 'io.restap/approval';

describe('issue 35 — approvals on the MCP and A2A doors, two replicas', () => {
  let db: ReplicaDatabase;
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    db = await openReplicaDatabase();
    a = await startSample({ url: db.url }, { apiKey: KEY, requireApproval: ['text.reverse'] });
    b = await startSample({ url: db.url }, { apiKey: KEY, requireApproval: ['text.reverse'] });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.close();
  });

  const runs = async (): Promise<number> => (await readAll(a.url, AUTH)).filter((i) => i.type === 'job.completed').length;

  describe.each(CLIENT_KINDS)('MCP, %s client', (kind) => {
    let onA: AnyClient;
    let onB: AnyClient;
    beforeAll(async () => {
      onA = await connectClient(kind, `${a.url}/mcp`, AUTH);
      onB = await connectClient(kind, `${b.url}/mcp`, AUTH);
    });
    afterAll(async () => {
      await onA?.close();
      await onB?.close();
    });

    type ToolResult = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Record<string, unknown>; _meta?: Record<string, { id?: string; error?: string }> };
    const call = (client: AnyClient, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult> =>
      client.callTool({ name: 'text_reverse', arguments: args, ...(meta ? { _meta: meta } : {}) } as never) as Promise<ToolResult>;

    it('Done when: a direct tools/call waits for approval instead of running, and says how to approve', async () => {
      const before = await runs();
      const held = await call(onA, { text: 'Hello' });
      expect(held.isError).toBe(true);
      const approval = held._meta![APPROVAL] as { id: string };
      expect(approval).toMatchObject({ id: expect.stringMatching(/^apr_/), capability: 'text.reverse', arguments: { text: 'Hello' } });
      expect(held.content[0].text).toContain(`approval ${approval.id}`);
      expect(held.content[0].text).toContain(`"${APPROVAL}":{"id":"${approval.id}","decision":"approve"}`);
      expect(held._meta!['io.restap/error']).toEqual({ error: 'approval_required', status: 403 });
      expect(await runs()).toBe(before);
    });

    it('resending the call with the approval on the other replica runs it once; again, it does not run', async () => {
      const held = await call(onA, { text: 'Hello' });
      const { id } = held._meta![APPROVAL] as { id: string };
      const before = await runs();
      const ran = await call(onB, { text: 'Hello' }, { [APPROVAL]: { id, decision: 'approve' } });
      expect(ran.isError).toBeFalsy();
      expect(ran.structuredContent).toMatchObject({ reversed_text: 'olleH' });
      const again = await call(onA, { text: 'Hello' }, { [APPROVAL]: { id, decision: 'approve' } });
      expect(again.isError).toBe(true);
      expect(again._meta!['io.restap/error']).toMatchObject({ error: 'approval_already_decided', status: 409 });
      expect(await runs()).toBe(before + 1);
    });

    it('an approval cannot run other arguments than the ones shown; a denial never runs', async () => {
      const held = await call(onA, { text: 'shown' });
      const { id } = held._meta![APPROVAL] as { id: string };
      const before = await runs();
      const changed = await call(onB, { text: 'something else' }, { [APPROVAL]: { id, decision: 'approve' } });
      expect(changed._meta!['io.restap/error']).toMatchObject({ error: 'approval_arguments_mismatch', status: 409 });
      const denied = await call(onB, { text: 'shown' }, { [APPROVAL]: { id, decision: 'deny' } });
      expect(denied.isError).toBe(true);
      expect(denied._meta!['io.restap/error']).toMatchObject({ error: 'approval_denied', status: 403 });
      const late = await call(onA, { text: 'shown' }, { [APPROVAL]: { id, decision: 'approve' } });
      expect(late._meta!['io.restap/error']).toMatchObject({ error: 'approval_already_decided' });
      expect(await runs()).toBe(before);
    });

    it('text.echo, not gated, still runs at once', async () => {
      const echoed = (await onA.callTool({ name: 'text_echo', arguments: { text: 'hi' } })) as ToolResult;
      expect(echoed.isError).toBeFalsy();
      expect(echoed.structuredContent).toMatchObject({ echoed_text: 'hi' });
    });
  });

  describe('A2A capability calls', () => {
    const send = async (app: RunningApp, parts: Parameters<typeof userMessage>[0], ids: { contextId?: string; taskId?: string } = {}) =>
      asTask(await (await clientFor(app.url)).sendMessage(sendParams(userMessage(parts, ids)), { serviceParameters: { authorization: AUTH.Authorization } }));

    it('Done when: the task goes to input-required with the question and the approval as a data part, and does not run', async () => {
      const before = await runs();
      const task = await send(a, [data({ capability: 'text.reverse', arguments: { text: 'Hello' } })]);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const { approval } = dataOf(task.status?.message?.parts) as { approval: { id: string; question: string } };
      expect(approval).toMatchObject({ id: expect.stringMatching(/^apr_/), capability: 'text.reverse', arguments: { text: 'Hello' } });
      const words = task.status?.message?.parts.find((p) => p.content?.$case === 'text')?.content?.value as string;
      expect(words).toContain(approval.question);
      expect(words).toContain(`{"approval": {"id": "${approval.id}", "decision": "approve"}}`);
      expect(task.artifacts).toEqual([]);
      expect(await runs()).toBe(before);
    });

    it('continuing the same task with {approval: {id, decision: "approve"}} on the other replica runs it once: completed with the result', async () => {
      const task = await send(a, [data({ capability: 'text.reverse', arguments: { text: 'Hello' } })]);
      const { approval } = dataOf(task.status?.message?.parts) as { approval: { id: string } };
      const before = await runs();
      const done = await send(b, [data({ approval: { id: approval.id, decision: 'approve' } })], { contextId: task.contextId, taskId: task.id });
      expect(done.id).toBe(task.id);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(dataOf(done.artifacts.find((x) => x.name === 'result')?.parts)).toMatchObject({ reversed_text: 'olleH' });
      expect(await runs()).toBe(before + 1);
    });

    it('a denial ends the task rejected and never runs it; an answer from another context is not found', async () => {
      const task = await send(a, [data({ capability: 'text.reverse', arguments: { text: 'no' } })]);
      const { approval } = dataOf(task.status?.message?.parts) as { approval: { id: string } };
      const other = await send(b, [data({ capability: 'text.reverse', arguments: { text: 'other' } })]);
      const before = await runs();
      const stranger = await send(b, [data({ approval: { id: approval.id, decision: 'approve' } })], { contextId: other.contextId, taskId: other.id });
      expect(stranger.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      expect(dataOf(stranger.status?.message?.parts)).toMatchObject({ error: 'approval_not_found' });
      const denied = await send(b, [data({ approval: { id: approval.id, decision: 'deny' } })], { contextId: task.contextId, taskId: task.id });
      expect(denied.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      expect(await runs()).toBe(before);
    });
  });
});
