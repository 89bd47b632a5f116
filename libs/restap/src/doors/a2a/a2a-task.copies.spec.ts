import { Role, TaskState, type Part, type Task } from '@a2a-js/sdk';
import { compactText, joinText, shareTask } from './a2a-task.copies';

const text = (value: string, extra: Partial<Part> = {}): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain', ...extra });

function task(): Task {
  return {
    id: 't1',
    contextId: 'c1',
    status: { state: TaskState.TASK_STATE_WORKING, timestamp: '2026-01-01T00:00:00.000Z', message: undefined },
    history: [{ messageId: 'm1', contextId: 'c1', taskId: 't1', role: Role.ROLE_USER, parts: [text('hello')], metadata: undefined, extensions: [], referenceTaskIds: [] }],
    artifacts: [{ artifactId: 'a1', name: 'reply', description: '', parts: [text('I'), text("'m "), text('here')], metadata: undefined, extensions: [] }],
    metadata: undefined,
  };
}

describe('task copies (issue 32, items 2 and 6)', () => {
  it('item 6: compactText joins a streamed reply into one text part, leaving the task it copies as it was', () => {
    const original = task();
    const compact = compactText(original);
    expect(compact.artifacts[0].parts).toEqual([text("I'm here")]);
    expect(original.artifacts[0].parts.map((p) => (p.content as { value: string }).value)).toEqual(['I', "'m ", 'here']);
  });

  it('item 6: text with metadata, a filename or another media type is not joined', () => {
    const parts = [text('a'), text('b', { filename: 'b.txt' }), text('c', { mediaType: 'text/markdown' }), text('d', { mediaType: 'text/markdown' })];
    expect(joinText(parts).map((p) => (p.content as { value: string }).value)).toEqual(['a', 'b', 'cd']);
    const plain = [text('a'), { ...text('b'), content: { $case: 'data' as const, value: {} } }];
    expect(joinText(plain)).toBe(plain);
  });

  it('item 2: shareTask copies what the SDK changes, and shares what it never changes (messages, parts)', () => {
    const original = task();
    const copy = shareTask(original);
    expect(copy.history[0]).toBe(original.history[0]);
    expect(copy.artifacts[0].parts[0]).toBe(original.artifacts[0].parts[0]);
    // What the SDK's ResultManager does to a loaded task:
    copy.status = { state: TaskState.TASK_STATE_COMPLETED, timestamp: '', message: undefined };
    copy.history = [...copy.history, original.history[0]];
    copy.artifacts[0].parts = [...copy.artifacts[0].parts, text('!')];
    copy.artifacts[0].name = 'renamed';
    copy.artifacts.push({ ...copy.artifacts[0], artifactId: 'a2' });
    expect(original).toEqual(task());
  });
});
