/**
 * True when `value` nests arrays and objects at most `max` levels deep. Iterative: a value nested
 * deeper than the call stack allows (which JSON.parse builds without complaint) is measured, not
 * a RangeError.
 */
export function withinDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return true;
}
