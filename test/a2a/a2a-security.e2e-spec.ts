import { TaskState } from '@a2a-js/sdk';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { useSampleAgent } from '../support/sample-app';
import { API_KEY, asTask, clientFor, sendParams, text, userMessage, withKey } from './a2a-support';

jest.setTimeout(90_000);

const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const v1Send = (words: string) => rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: words }] } });

describe('A2A door: security', () => {
  describe('with the sample\'s API key', () => {
    const agent = useSampleAgent({ apiKey: API_KEY });
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${agent.url}/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers }, body });

    it('the JSON-RPC endpoint answers 401 without the key (the card stays public), in the module\'s error shape', async () => {
      const res = await post(v1Send('hi'));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
      expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
      const client = await clientFor(agent.url);
      await expect(client.sendMessage(sendParams(userMessage([text('hi')])))).rejects.toThrow();
      expect((await fetch(`${agent.url}/.well-known/agent-card.json`)).status).toBe(200);
    });

    it('a 0.3 client: message/send without A2A-Version gets a 0.3 task back', async () => {
      const res = await fetch(`${agent.url}/a2a`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
        body: rpc('message/send', { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hello from 0.3' }] } }),
      });
      expect(res.status).toBe(200);
      const { result } = await res.json();
      expect(result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect(result.contextId).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
      expect(result.artifacts[0].parts.map((p: { kind: string; text: string }) => p.text).join('')).toMatch(/\S/);
    });

    it('bad requests get a clear JSON error, never a stack: body too large (413), invalid JSON (JSON-RPC -32700, issue 38 item 1), wrong method (405)', async () => {
      const key = { Authorization: `Bearer ${API_KEY}` };
      const huge = await post(v1Send('x'.repeat(1024 * 1024 + 10)), key);
      expect(huge.status).toBe(413);
      expect(await huge.json()).toEqual({ error: 'payload_too_large', message: expect.any(String) });
      const broken = await post('{"jsonrpc": "2.0", ', key);
      expect(broken.status).toBe(200);
      expect(await broken.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.', data: expect.any(Array) } });
      const get = await fetch(`${agent.url}/a2a`, { headers: key });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      const unknown = await post(rpc('NoSuchMethod', {}), key);
      const body = await unknown.text();
      expect(JSON.parse(body).error.code).toBe(-32601);
      expect(body).not.toMatch(/\bat .*\.(js|ts):\d+/);
    });

    it('text the agent could not store (a NUL) is rejected with the reason (the core\'s storable-text rule)', async () => {
      const client = await clientFor(agent.url);
      const task = asTask(await client.sendMessage(sendParams(userMessage([text('a\u0000b')])), withKey()));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      const reason = task.status?.message?.parts[0]?.content;
      expect(reason?.$case === 'text' && reason.value).toMatch(/NUL|invalid|character/i);
    });

    it('storage keeps the context id (= session id, a secret) only as a hash, and the turns in that session', async () => {
      const client = await clientFor(agent.url);
      const task = asTask(await client.sendMessage(sendParams(userMessage([text('keep my secret')])), withKey()));
      const hash = createHash('sha256').update(task.contextId).digest();
      const db = agent.app.get(DataSource);
      const [row] = await db.query('SELECT task::text AS task, context_hash, owner_hash FROM restap_a2a_tasks WHERE id = $1', [task.id]);
      expect(row.task).not.toContain(task.contextId);
      expect(Buffer.from(row.context_hash).equals(hash)).toBe(true);
      expect(Buffer.from(row.owner_hash).toString('hex')).not.toContain(Buffer.from(API_KEY).toString('hex'));
      const sessions = await db.query('SELECT count(*)::int AS n FROM restap_sessions WHERE key_hash = $1', [hash]);
      expect(sessions[0].n).toBe(1);
      // ...and the owner gets the context id back (unsealed with its key), even from storage alone.
      const again = await client.getTask({ tenant: '', id: task.id }, withKey());
      expect(again.contextId).toBe(task.contextId);
    });
  });

  describe('callers told apart by their credentials (sample without a configured key: any key passes)', () => {
    const agent = useSampleAgent({});
    const alice = withKey('alice-key-0000000000');
    const bob = withKey('bob-key-11111111111111');

    it('another caller cannot read, list or cancel the task; the caller that created it can', async () => {
      const client = await clientFor(agent.url);
      const task = asTask(await client.sendMessage(sendParams(userMessage([text('private words')])), alice));
      await expect(client.getTask({ tenant: '', id: task.id }, bob)).rejects.toThrow(/not found/i);
      await expect(client.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
      await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, bob)).rejects.toThrow(/not found/i);
      const bobs = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined }, bob);
      expect(bobs.tasks.map((t) => t.id)).not.toContain(task.id);
      const alices = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined }, alice);
      expect(alices.tasks.map((t) => t.id)).toContain(task.id);
      expect((await client.getTask({ tenant: '', id: task.id }, alice)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('the same session may read it: whoever holds the context id (the session secret) lists its tasks', async () => {
      const client = await clientFor(agent.url);
      const task = asTask(await client.sendMessage(sendParams(userMessage([text('shared session')])), alice));
      const inContext = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined }, bob);
      expect(inContext.tasks.map((t) => t.id)).toEqual([task.id]);
      expect(inContext.tasks[0].contextId).toBe(task.contextId);
    });
  });
});
