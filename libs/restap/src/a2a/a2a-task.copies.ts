import type { Part, Task } from '@a2a-js/sdk';

/** Copies of A2A tasks as the task store keeps and hands them out. */

/**
 * A copy of a finished task whose streamed reply is one text part per artifact run instead of one
 * per delta: adjacent plain text parts (no metadata, no filename, same media type) are joined.
 */
export function compactText(task: Task): Task {
  const copy = copyTask(task);
  for (const artifact of copy.artifacts ?? []) {
    const parts: Part[] = [];
    for (const part of artifact.parts) {
      const last = parts[parts.length - 1];
      if (part.content?.$case === 'text' && last?.content?.$case === 'text' && plain(part) && plain(last) && part.mediaType === last.mediaType) {
        last.content = { $case: 'text', value: last.content.value + part.content.value };
      } else {
        parts.push(part);
      }
    }
    artifact.parts = parts;
  }
  return copy;
}

/**
 * A deep copy of a task. A task is JSON-shaped data (plain objects, arrays, strings, numbers, the
 * bytes of a raw part), which a recursive copy takes in about a tenth of `structuredClone`'s time;
 * anything else in it (a class instance in metadata) is copied by `structuredClone`.
 */
export function copyTask(task: Task): Task {
  return copyData(task) as Task;
}

function copyData(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyData);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyData((value as Record<string, unknown>)[key]);
  return copy;
}

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
