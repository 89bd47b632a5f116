/**
 * True when `value` nests arrays and objects at most `max` levels deep. Iterative: a value nested
 * deeper than the call stack allows (which JSON.parse builds without complaint) is measured, not
 * a RangeError.
 */
export function withinDepth(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  let stack: Array<[object, number]> | undefined;
  let node: object = value;
  let depth = 0;
  for (;;) {
    if (depth >= max) return false;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') (stack ??= []).push([child as object, depth + 1]);
    const next = stack?.pop();
    if (next === undefined) return true;
    [node, depth] = next;
  }
}

/** The refusal's wording for a body that `withinDepth` refused. */
export const tooDeepMessage = (max: number): string => `The request body nests arrays/objects deeper than the ${max} levels allowed.`;
