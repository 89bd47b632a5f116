import { CAPABILITY_ID_PATTERN } from '../../restap.constants';

/** What OpenAI (and most model APIs) accept as a function name. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The tool name of a capability id: `.` becomes `_` and `_` becomes `__`, so `text.reverse` is
 * `text_reverse` while an id `text_reverse` is `text__reverse`. One-to-one because in a valid id
 * a run of `_` is followed by at most one `.` and never starts a segment: a run of k underscores
 * in a name reads back as floor(k/2) `_`, then a `.` when k is odd. Undefined when the name would
 * not fit OpenAI's `^[a-zA-Z0-9_-]{1,64}$` (the id is too long to be offered as a tool).
 *
 * @example
 * toolNameOf('text.reverse') // 'text_reverse'
 */
export function toolNameOf(capabilityId: string): string | undefined {
  const name = capabilityId.replace(/_/g, '__').replace(/\./g, '_');
  return TOOL_NAME_PATTERN.test(name) ? name : undefined;
}

/**
 * The capability id a tool name stands for (the inverse of `toolNameOf`), or undefined when the
 * name is not one `toolNameOf` can produce.
 *
 * @example
 * capabilityIdOf('text_reverse') // 'text.reverse'
 */
export function capabilityIdOf(toolName: string): string | undefined {
  if (!TOOL_NAME_PATTERN.test(toolName)) return undefined;
  const id = toolName.replace(/_+/g, (run) => '_'.repeat(Math.floor(run.length / 2)) + (run.length % 2 ? '.' : ''));
  return CAPABILITY_ID_PATTERN.test(id) ? id : undefined;
}
