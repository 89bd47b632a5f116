import { TaskState, type Artifact, type StreamResponse, type Task } from '@a2a-js/sdk';
import { textPart } from './a2a-events';

const TERMINAL = new Set<TaskState | undefined>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/**
 * A subscription to a task another instance runs, followed through storage: the stored task, then
 * what changed at each read — new artifacts, text appended to an artifact, a new status — until a
 * final status. The running instance writes its copy at least every 100 ms while it streams
 * (A2aTaskStore) and wakes this instance after each write (A2aTaskWakeups, LISTEN/NOTIFY), so a
 * subscriber here lags by at most that plus one NOTIFY. `changed()` resolves at the task's next
 * wake-up (or a resync); it is armed before each read, so a write between the read and the wait
 * is not missed. `first` was read after the first `changed()` was armed.
 */
export async function* followStoredTask(first: Task, load: () => Promise<Task | undefined>, changed: () => Promise<void>, armed: Promise<void>): AsyncGenerator<StreamResponse, void, undefined> {
  yield { payload: { $case: 'task', value: first } };
  let last = first;
  let wake = armed;
  while (!TERMINAL.has(last.status?.state)) {
    await wake;
    wake = changed();
    const next = await load();
    if (!next) return;
    yield* changes(last, next);
    last = next;
  }
}

/** The events that take a subscriber from `before` to `after`: artifacts first, the status last. */
function* changes(before: Task, after: Task): Generator<StreamResponse> {
  const final = TERMINAL.has(after.status?.state);
  for (const artifact of after.artifacts ?? []) {
    const earlier = before.artifacts?.find((a) => a.artifactId === artifact.artifactId);
    const update = { taskId: after.id, contextId: after.contextId, metadata: undefined, lastChunk: final };
    if (!earlier) {
      yield { payload: { $case: 'artifactUpdate', value: { ...update, artifact, append: false } } };
      continue;
    }
    const [was, is] = [textOf(earlier), textOf(artifact)];
    if (is.length > was.length && is.startsWith(was)) {
      yield { payload: { $case: 'artifactUpdate', value: { ...update, artifact: { ...artifact, parts: [textPart(is.slice(was.length))] }, append: true } } };
    }
  }
  const [s0, s1] = [before.status, after.status];
  if (s1 && (s1.state !== s0?.state || s1.timestamp !== s0?.timestamp)) {
    yield { payload: { $case: 'statusUpdate', value: { taskId: after.id, contextId: after.contextId, status: s1, metadata: undefined } } };
  }
}

function textOf(artifact: Artifact): string {
  return artifact.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}
