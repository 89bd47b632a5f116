/**
 * Estimates the random bits of a minted session id, for the spec's "one that a server mints MUST
 * [carry at least 122 bits of entropy]". From outside only the shape is visible, so this is a
 * heuristic: the part two fresh ids share (a readable prefix such as `sess_`) is discounted and
 * the rest is charged by its alphabet (hex 4 bits, base36 ~5.2, base64url 6 per character).
 */
export function estimateEntropyBits(id: string, other: string): number {
  let shared = 0;
  while (shared < id.length && id[shared] === other[shared]) shared++;
  const rest = id.slice(shared).replace(/[.-]/g, '');
  if (rest === '') return 0;
  if (/^\d+$/.test(rest)) return rest.length * Math.log2(10);
  if (/^[0-9a-f]+$/i.test(rest)) return rest.length * 4;
  if (/^[0-9a-z]+$/.test(rest) || /^[0-9A-Z]+$/.test(rest)) return rest.length * Math.log2(36);
  return rest.length * 6;
}

/**
 * Threshold below which the checker calls an id guessable. Lower than 122 because a few leading
 * characters of two random ids coincide by chance and get discounted as "prefix".
 */
export const MIN_ESTIMATED_BITS = 110;
