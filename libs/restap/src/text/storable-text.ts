import { InvalidRequestException } from '../exceptions/invalid-request.exception';

/*
 * The one rule for strings on their way to storage, whichever door they came through (RESTAP,
 * MCP, A2A, tool steps):
 *
 *  - Inside a JSON document stored as `json` (a news item's body: message, from, data keys and
 *    values…) every string is kept losslessly: JSON escapes NUL (\u0000) and unpaired surrogates,
 *    and PostgreSQL's `json` type keeps the text as written. Nothing to check.
 *  - A string stored in a `text` column (a /talk message, a news `type`, a tool name…) must be
 *    well-formed Unicode without NUL: PostgreSQL refuses NUL in text ("invalid byte sequence for
 *    encoding UTF8: 0x00", a 500 if it got that far), and an unpaired surrogate would be silently
 *    replaced by U+FFFD when encoded as UTF-8. A client's such string is refused up front with
 *    400 invalid_request naming the field: `assertStorableText(value, 'type')`.
 *  - A JSON value bound for `jsonb` (which refuses \u0000 anywhere, keys included) is checked with
 *    `assertStorableJsonb(value, 'data')`, which names the exact path.
 *  - Text the agent itself produces (a model's reply, a tool's output) cannot be refused: it is
 *    made storable with `toStorableText()` (NUL and unpaired surrogates become U+FFFD), so a
 *    model's odd byte never fails the turn that produced it.
 */

/** Matches what a PostgreSQL text column cannot keep: NUL, and UTF-16 surrogates without their pair. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
/**
 * The same rule as a whole-string pattern, for a DTO's validator and the JSON Schema it becomes
 * (`IsStorableText()`): only storable characters, a surrogate only with its pair. Written to read
 * alike with and without the `u` flag (JSON Schema validators such as Ajv compile with it).
 */
export const STORABLE_TEXT_PATTERN = /^(?:[^\u0000\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** ES2024's `String#isWellFormed` (false when a UTF-16 surrogate lacks its pair), which TypeScript's ES2023 lib does not declare. */
const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed;

/**
 * True when UNSTORABLE finds nothing in `value`, by two string builtins instead of the pattern (every
 * /talk turn checks its message twice and writes two texts): a one-byte string is well-formed at once.
 */
function storableAsIs(value: string): boolean {
  return !value.includes('\u0000') && isWellFormed.call(value);
}

/** What is wrong with `value` for a text column, or undefined when it can be stored as is. */
export function unstorableTextReason(value: string): string | undefined {
  if (storableAsIs(value)) return undefined;
  const found = UNSTORABLE.exec(value);
  if (!found) return undefined;
  return found[0] === '\u0000' ? 'a NUL (U+0000) character' : `an unpaired UTF-16 surrogate (U+${found[0].charCodeAt(0).toString(16).toUpperCase()})`;
}

/**
 * Refuses a client's string that a text column cannot store exactly: 400 invalid_request naming
 * `field`. Call it on every client string that reaches a text column, at every door.
 *
 * @example
 * assertStorableText(body.type, 'type'); // "t\u0000" → 400 'Field "type" must not contain a NUL (U+0000) character.'
 */
export function assertStorableText(value: string, field: string): void {
  const reason = unstorableTextReason(value);
  if (reason) throw new InvalidRequestException(`Field "${field}" must not contain ${reason}: it cannot be stored.`);
}

/**
 * Refuses a client's JSON value bound for a `jsonb` column when a key or string in it holds NUL
 * (jsonb refuses \u0000 anywhere): 400 invalid_request naming the path (`data.items[3].name`).
 * Iterative, so any depth is safe.
 */
export function assertStorableJsonb(value: unknown, field: string): void {
  const stack: Array<[unknown, string]> = [[value, field]];
  while (stack.length) {
    const [node, path] = stack.pop() as [unknown, string];
    if (typeof node === 'string') {
      if (node.includes('\u0000')) throw new InvalidRequestException(`Field "${path}" must not contain a NUL (U+0000) character: it cannot be stored.`);
    } else if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([child, `${path}[${i}]`]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key.includes('\u0000')) throw new InvalidRequestException(`A key in "${path}" contains a NUL (U+0000) character: it cannot be stored.`);
        stack.push([child, `${path}.${key}`]);
      }
    }
  }
}

/**
 * Text the agent produced, made storable in a text column: NUL and unpaired surrogates become
 * U+FFFD. For model replies and tool output, which cannot be refused; never for client input.
 */
export function toStorableText(value: string): string {
  return storableAsIs(value) ? value : value.replace(UNSTORABLE_ALL, '\uFFFD');
}
