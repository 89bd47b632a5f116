import type { Part, Task } from '@a2a-js/sdk';

/** Copies of A2A tasks as the task store keeps and hands them out. */

/**
 * A copy of a task that the SDK may change the way it does — replacing the task's status, history
 * or metadata, adding or replacing artifacts, replacing an artifact's parts, name or metadata —
 * without touching `task`: the task, its two arrays and its artifacts are new objects, while the
 * messages and parts, which nothing changes in place, are shared. Its cost is the number of
 * messages and artifacts, not the size of their content: a delta streamed into a task whose
 * history holds a large message costs what it costs for a small one (issue 32, item 2).
 */
export function shareTask(task: Task): Task {
  return {
    ...task,
    history: task.history ? [...task.history] : task.history,
    artifacts: task.artifacts ? task.artifacts.map((artifact) => ({ ...artifact })) : task.artifacts,
  };
}

/**
 * A copy (see {@link shareTask}) of a task whose streamed reply is one text part per artifact run
 * instead of one per delta: adjacent plain text parts (no metadata, no filename, same media type)
 * are joined into a new part; the parts themselves are left as they are.
 */
export function compactText(task: Task): Task {
  const copy = shareTask(task);
  for (const artifact of copy.artifacts ?? []) artifact.parts = joinText(artifact.parts);
  return copy;
}

/** `parts` with adjacent plain text parts joined; the same array when there is nothing to join. */
export function joinText(parts: Part[]): Part[] {
  let joined: Part[] | undefined;
  for (let i = 1; i < parts.length; i++) {
    const last = joined ? joined[joined.length - 1] : parts[i - 1];
    const part = parts[i];
    if (joinable(last, part)) {
      joined ??= parts.slice(0, i);
      const value = (last.content as { value: string }).value + (part.content as { value: string }).value;
      joined[joined.length - 1] = { ...last, content: { $case: 'text', value } };
    } else if (joined) {
      joined.push(part);
    }
  }
  return joined ?? parts;
}

const joinable = (a: Part, b: Part): boolean =>
  a.content?.$case === 'text' && b.content?.$case === 'text' && plain(a) && plain(b) && a.mediaType === b.mediaType;

const plain = (part: Part): boolean => !part.filename && (!part.metadata || !Object.keys(part.metadata).length);

/** A copy of `task` whose context id (and its messages') is `contextId`. */
export function withContextId(task: Task, contextId: string): Task {
  const message = task.status?.message;
  return {
    ...task,
    contextId,
    history: (task.history ?? []).map((m) => ({ ...m, contextId })),
    ...(task.status ? { status: { ...task.status, ...(message ? { message: { ...message, contextId } } : {}) } } : {}),
  };
}
