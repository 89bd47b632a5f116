import { randomUUID } from 'node:crypto';
import { resolveOptions } from '../../restap-options.resolver';
import { buildAgentCard } from './agent-card.factory';
import { A2aRequestCheck, storableTime } from './a2a-request.check';

describe('A2aRequestCheck (issue 32, items 2 and 11)', () => {
  const options = resolveOptions({ agent: { name: 'Agent' }, a2a: { enabled: true } });
  const check = new A2aRequestCheck(buildAgentCard({ options, capabilities: [], talk: true }), '/a2a', { maxParts: 4, maxMessageChars: 200 });
  const send = (message: unknown, method = 'SendMessage') => check.problemOf({ jsonrpc: '2.0', id: 1, method, params: { message } });
  const message = (extra: Record<string, unknown> = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }], ...extra });

  it('item 2: caps the parts of a message, 1.0 and 0.3 alike', () => {
    expect(send(message())).toBeUndefined();
    expect(send(message({ parts: Array.from({ length: 4 }, () => ({ text: 'a' })) }))).toBeUndefined();
    expect(send(message({ parts: Array.from({ length: 5 }, () => ({ text: 'a' })) }))).toBe('A message carries at most 4 parts; this one has 5.');
    expect(send(message({ parts: Array.from({ length: 5 }, () => ({ kind: 'text', text: 'a' })) }), 'message/stream')).toMatch(/at most 4 parts/);
  });

  it('item 2: caps the characters of the whole message — parts, metadata, ids (keys count, numbers count one)', () => {
    // Around the text: the keys (messageId, role, parts, text), a 36-character id and 'ROLE_USER': 67 characters.
    const small = { messageId: randomUUID(), role: 'ROLE_USER' };
    expect(send({ ...small, parts: [{ text: 'x'.repeat(133) }] })).toBeUndefined();
    expect(send({ ...small, parts: [{ text: 'x'.repeat(134) }] })).toMatch(/at most 200 characters/);
    expect(send({ ...small, parts: [{ data: { ['k'.repeat(70)]: 'v'.repeat(70) } }] })).toMatch(/at most 200 characters/);
    expect(send({ ...small, parts: [{ text: 'x' }], metadata: { note: 'y'.repeat(130) } })).toMatch(/at most 200 characters/);
    expect(send({ ...small, messageId: 'm'.repeat(201), parts: [{ text: 'x' }] })).toMatch(/at most 200 characters/);
  });

  it('item 11: refuses task ids SQL cannot hold (NUL), in either spelling the SDK reads, and too many reference tasks', () => {
    expect(send(message({ taskId: 'a\u0000' }))).toMatch(/message.taskId .* NUL/);
    expect(send(message({ task_id: 'a\u0000' }))).toMatch(/message.taskId .* NUL/);
    expect(send(message({ referenceTaskIds: ['ok', 'b\u0000'] }))).toMatch(/referenceTaskIds/);
    expect(send(message({ reference_task_ids: Array.from({ length: 17 }, () => 'r') }))).toMatch(/at most 16 reference tasks/);
    for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe']) {
      expect(check.problemOf({ jsonrpc: '2.0', method, params: { id: 'a\u0000' } })).toMatch(/NUL/);
      expect(check.problemOf({ jsonrpc: '2.0', method, params: { id: randomUUID() } })).toBeUndefined();
    }
  });

  it('leaves the rest to the SDK: other methods, malformed envelopes', () => {
    expect(check.problemOf({ jsonrpc: '2.0', method: 'ListTasks', params: {} })).toBeUndefined();
    expect(check.problemOf([])).toBeUndefined();
    expect(check.problemOf({ method: 'SendMessage' })).toBeUndefined();
    expect(send(undefined)).toBe('params.message is required: the message to send.');
  });

  it('item 11: storable dates are those of the years 0001 to 9999', () => {
    expect(storableTime(new Date('0001-01-01T00:00:00Z'))).toBe(true);
    expect(storableTime(new Date('9999-12-31T23:59:59.999Z'))).toBe(true);
    expect(storableTime(new Date('+010000-01-01T00:00:00Z'))).toBe(false);
    expect(storableTime(new Date('-000001-01-01T00:00:00Z'))).toBe(false);
  });
});
