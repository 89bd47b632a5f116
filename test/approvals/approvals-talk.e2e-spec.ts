import { Client } from 'pg';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { messagesOf, startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';
import { readAll } from '../fixtures/news-http';
import { formatReport, RestapClient, runConformance } from 'restap-client';
import { TaskState } from '@a2a-js/sdk';
import { artifactText, asTask, clientFor, data, dataOf, sendParams, text, userMessage } from '../a2a/a2a-support';
import { reversingModel } from '../support/reversing-model';

// Issue 35 — human approval before a consequential action, the same on any replica. Two sample
// agents on one PostgreSQL, RESTAP_REQUIRE_APPROVAL=text.reverse, a fake model that asks for
// text.reverse. text.reverse publishes a job.completed news item each time it really runs: the
// feed counts the runs.
jest.setTimeout(90_000);

const KEY = 'approval-key-35';
const AUTH = { Authorization: `Bearer ${KEY}` };
const APR = /^apr_[A-Za-z0-9_-]{32}$/;


describe('issue 35 — approvals over /talk, on two replicas (RESTAP_REQUIRE_APPROVAL=text.reverse)', () => {
  let db: ReplicaDatabase;
  let llm: FakeLlm;
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    db = await openReplicaDatabase();
    llm = await startFakeLlm({ respond: reversingModel });
    const config = { apiKey: KEY, llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' }, requireApproval: ['text.reverse'] };
    a = await startSample({ url: db.url }, config);
    b = await startSample({ url: db.url }, config);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await llm?.close();
    await db?.close();
  });

  /** Runs of text.reverse so far: each real run publishes one job.completed item. */
  const runs = async (): Promise<number> => (await readAll(a.url, AUTH)).filter((i) => i.type === 'job.completed').length;

  /** A turn on `app` whose model asks to reverse `text`: the session and the approval it asked for. */
  async function ask(app: RunningApp, text: string): Promise<{ session: string; approval: { id: string; [k: string]: unknown }; reply: string }> {
    const res = await postTalk(`${app.url}/talk`, { message: `reverse '${text}'` }, AUTH);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { session_id: string; reply: string; approval_required: Array<{ id: string }> };
    expect(body.approval_required).toHaveLength(1);
    return { session: body.session_id, approval: body.approval_required[0], reply: body.reply };
  }

  const answer = (app: RunningApp, session: string, id: string, decision: 'approve' | 'deny', extra: Record<string, unknown> = {}): Promise<Response> =>
    postTalk(`${app.url}/talk`, { session_id: session, message: decision === 'approve' ? 'Yes, go ahead.' : 'No.', approval: { id, decision, ...extra } }, AUTH);

  it('discovery declares the extension: approval.required among the talk events, and the body field under extensions', async () => {
    const catalog = await (await fetch(`${a.url}/.well-known/restap.json`)).json();
    const talk = catalog.capabilities.find((c: { id: string }) => c.id === 'talk');
    expect(talk.streaming.events).toEqual(['message.start', 'message.delta', 'message.end', 'error', 'done', 'tool.start', 'tool.end', 'approval.required']);
    expect(catalog.extensions['io.restap/approval']).toMatchObject({ capability: 'talk', events: ['approval.required'], request_fields: { approval: { required: ['id', 'decision'] } } });
  });

  it('the extension breaks no conformant client: restap check passes every MUST and SHOULD rule against it', async () => {
    const report = await runConformance(a.url, { timeoutMs: 30_000, headers: AUTH });
    const failed = report.results.filter((r) => r.status === 'fail');
    if (failed.length) throw new Error(`${failed.map((r) => r.id).join(', ')} failed\n${formatReport(report)}`);
    expect(report.ok).toBe(true);
    expect(report.results.find((r) => r.id === 'sse.event-order')?.status).toBe('pass');
  });

  it('Done when: the SSE turn streams approval.required, asks in words, and does not run text.reverse (nor ask the model again)', async () => {
    const before = await runs();
    const modelCalls = llm.requests.length;
    const frames = eventsOnly(await (await openTalkStream(`${a.url}/talk`, { message: "reverse 'hello world'" }, AUTH)).rest());
    expect(frames.map((f) => f.event)).toEqual(['message.start', 'tool.start', 'tool.end', 'approval.required', 'message.delta', 'message.end', 'done']);
    const required = frames[3].data!;
    expect(required).toEqual({
      event: 'approval.required',
      id: expect.stringMatching(APR),
      capability: 'text.reverse',
      arguments: { text: 'hello world' },
      question: 'Allow "Reverse text" (text.reverse) with {"text":"hello world"}?',
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(required.expires_at as string) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 5_000);
    expect(frames[2].data).toMatchObject({ event: 'tool.end', ok: false });
    expect(frames[4].data!.text).toContain(`approval ${required.id as string}`);
    expect(frames[4].data!.text).toContain('Answer "approve" or "deny"');
    expect(llm.requests.length - modelCalls).toBe(1);
    expect(await runs()).toBe(before);
  });

  it('Done when: approving the id on the OTHER replica runs text.reverse once and the model receives its result; approving again does not run it again', async () => {
    const { session, approval, reply } = await ask(a, 'hello world');
    expect(reply).toContain(approval.id);
    const before = await runs();
    const res = await answer(b, session, approval.id, 'approve');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.reply).toBe('Reversed: dlrow olleh');
    expect(body.approval_required).toBeUndefined();
    expect(await runs()).toBe(before + 1);
    // The model saw the person's message, then the approved call and its result.
    const seen = messagesOf(llm.requests.at(-1)!.body);
    expect(seen.at(-3)).toEqual({ role: 'user', content: 'Yes, go ahead.' });
    expect(seen.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'text_reverse', arguments: '{"text":"hello world"}' } }] });
    expect(seen.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('"reversed_text":"dlrow olleh"') });

    for (const app of [a, b]) {
      const again = await answer(app, session, approval.id, 'approve');
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ error: 'approval_already_decided' });
    }
    expect(await runs()).toBe(before + 1);
  });

  it('SSE resume: the approved call is framed by tool.start / tool.end naming the approval, then the answer streams', async () => {
    const { session, approval } = await ask(b, 'abc');
    const frames = eventsOnly(await (await openTalkStream(`${a.url}/talk`, { session_id: session, message: 'ok', approval: { id: approval.id, decision: 'approve' } }, AUTH)).rest());
    expect(frames.map((f) => f.event)).toEqual(['message.start', 'tool.start', 'tool.end', 'message.delta', 'message.delta', 'message.end', 'done']);
    expect(frames[1].data).toMatchObject({ name: 'text_reverse', arguments: { text: 'abc' }, approval: { id: approval.id, decision: 'approved' } });
    expect(frames[2].data).toMatchObject({ ok: true, result: expect.stringContaining('"reversed_text":"cba"') });
    expect(frames.filter((f) => f.event === 'message.delta').map((f) => f.data!.text).join('')).toBe('Reversed: cba');
  });

  it('Done when: two approvals of one id racing on both replicas run it exactly once (one 200, one 409)', async () => {
    for (let round = 0; round < 3; round++) {
      const { session, approval } = await ask(a, `race ${round}`);
      const before = await runs();
      const answers = await Promise.all([answer(a, session, approval.id, 'approve'), answer(b, session, approval.id, 'approve')]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await runs()).toBe(before + 1);
    }
  });

  it('Done when: a denial never runs it — the model is told it was denied — and a later approve is refused', async () => {
    const { session, approval } = await ask(a, 'secret');
    const before = await runs();
    const res = await answer(b, session, approval.id, 'deny');
    expect(res.status).toBe(200);
    expect((await res.json()).reply).toBe('The call did not run: Error 403 approval_denied: A person deni');
    const late = await answer(a, session, approval.id, 'approve');
    expect(late.status).toBe(409);
    expect(await runs()).toBe(before);
  });

  it('a plain client (restap-client, SSE) that knows no approval.required reads the question, answers "approve" in words, and gets the result', async () => {
    const agent = await RestapClient.discover(a.url, { headers: AUTH });
    const asked = await agent.talkStream("reverse 'words'").text();
    expect(asked).toMatch(/^Approval needed: Allow "Reverse text" \(text.reverse\) with \{"text":"words"\}\? \(approval apr_/);
    expect(await agent.talkStream('approve').text()).toBe('Reversed: sdrow');
  });

  it('a plain "approve" message answers the session\'s one pending approval (plain clients work)', async () => {
    const { session } = await ask(a, 'plain');
    const before = await runs();
    const res = await postTalk(`${b.url}/talk`, { session_id: session, message: 'approve' }, AUTH);
    expect((await res.json()).reply).toBe('Reversed: nialp');
    expect(await runs()).toBe(before + 1);
    // No approval is pending any more: "approve" is an ordinary message again.
    expect((await (await postTalk(`${a.url}/talk`, { session_id: session, message: 'approve' }, AUTH)).json()).reply).toBe('You said: approve');
  });

  it('refuses forged ids, ids of another session, and answers that try to change the arguments', async () => {
    const mine = await ask(a, 'mine');
    const theirs = await ask(b, 'theirs');
    const before = await runs();
    const forged = await answer(a, mine.session, `apr_${'A'.repeat(32)}`, 'approve');
    expect(forged.status).toBe(404);
    expect(await forged.json()).toMatchObject({ error: 'approval_not_found' });
    const other = await answer(a, mine.session, theirs.approval.id, 'approve');
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'approval_not_found' });
    const changed = await answer(b, mine.session, mine.approval.id, 'approve', { arguments: { text: 'something else' } });
    expect(changed.status).toBe(400);
    expect(await changed.json()).toMatchObject({ error: 'invalid_request' });
    const sessionless = await postTalk(`${a.url}/talk`, { message: 'go', approval: { id: mine.approval.id, decision: 'approve' } }, AUTH);
    expect(sessionless.status).toBe(400);
    expect(await runs()).toBe(before);
    // Still pending, and still the call that was shown: approving it now runs 'mine', not anything else.
    expect((await (await answer(b, mine.session, mine.approval.id, 'approve')).json()).reply).toBe('Reversed: enim');
  });

  it('an expired approval never runs (410 approval_expired)', async () => {
    const { session, approval } = await ask(a, 'late');
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      await pg.query(`UPDATE restap_approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [approval.id]);
    } finally {
      await pg.end();
    }
    const before = await runs();
    const res = await answer(b, session, approval.id, 'approve');
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({ error: 'approval_expired' });
    expect(await runs()).toBe(before);
  });

  it('audit: the row keeps capability, exact arguments, who asked and who decided, the result — and never the session id', async () => {
    const { session, approval } = await ask(a, 'audit');
    await answer(b, session, approval.id, 'approve');
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query(`SELECT * FROM restap_approvals WHERE id = $1`, [approval.id]);
      expect(rows[0]).toMatchObject({ capability: 'text.reverse', arguments: '{"text":"audit"}', door: 'talk', decision: 'approved', result_ok: true });
      expect(rows[0].requested_by).toMatch(/^cred:[0-9a-f]{16}$/);
      expect(rows[0].decided_by).toBe(rows[0].requested_by);
      expect(rows[0].result).toContain('tidua');
      const all = JSON.stringify((await pg.query(`SELECT * FROM restap_approvals`)).rows);
      expect(all).not.toContain(session);
      expect(all).not.toContain(KEY);
      // The session history keeps the approved call as a tool step of the reply.
      const turns = (await pg.query(`SELECT role, content, tool_steps FROM restap_turns ORDER BY id DESC LIMIT 2`)).rows;
      expect(turns[0].tool_steps[0].calls[0]).toMatchObject({ name: 'text_reverse', ok: true, arguments: '{"text":"audit"}' });
    } finally {
      await pg.end();
    }
  });

  it('item 5: an A2A conversation turn that hits the gate goes input-required; continuing the task with {approval} on the other replica runs it and the model answers', async () => {
    const send = async (app: RunningApp, parts: Parameters<typeof userMessage>[0], ids: { contextId?: string; taskId?: string } = {}) =>
      asTask(await (await clientFor(app.url)).sendMessage(sendParams(userMessage(parts, ids)), { serviceParameters: AUTH }));
    const before = await runs();
    const task = await send(a, [text("reverse 'agent'")]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const { approval } = dataOf(task.status?.message?.parts) as { approval: { id: string; capability: string } };
    expect(approval).toMatchObject({ id: expect.stringMatching(APR), capability: 'text.reverse', arguments: { text: 'agent' } });
    expect(await runs()).toBe(before);
    const done = await send(b, [data({ approval: { id: approval.id, decision: 'approve' } })], { contextId: task.contextId, taskId: task.id });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(done)).toContain('Reversed: tnega');
    expect(await runs()).toBe(before + 1);
  });
});
