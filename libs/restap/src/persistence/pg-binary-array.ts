/** Element type oids of the arrays {@link binaryArray} writes. */
export const PG_ELEMENT = { int4: 23, text: 25, bytea: 17 } as const;

/** A value of a {@link binaryArray}: an int4 as a number, a text as a string, a bytea as a Buffer. */
export type BinaryArrayValue = number | string | Buffer;

/**
 * A one-dimensional array without NULLs in PostgreSQL's binary form (what `array_recv` reads), for a
 * `$n::<type>[]` parameter: node-postgres sends a Buffer parameter as it is, in binary. An array
 * given as such is written as an array literal instead: each text element escaped by two
 * regular-expression replaces, each bytea element hex-encoded, and the whole measured again.
 *
 * @example
 * await pool.query('SELECT unnest($1::text[])', [binaryArray(PG_ELEMENT.text, ['a', 'b"c'])]);
 */
export function binaryArray(element: number, values: readonly BinaryArrayValue[]): Buffer {
  let size = 20 + 4 * values.length;
  for (const value of values) size += typeof value === 'number' ? 4 : typeof value === 'string' ? Buffer.byteLength(value) : value.length;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0); // dimensions
  out.writeInt32BE(0, 4); // no NULLs
  out.writeUInt32BE(element, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = 20;
  for (const value of values) {
    if (typeof value === 'number') {
      out.writeInt32BE(4, at);
      at = out.writeInt32BE(value, at + 4);
    } else {
      const length = typeof value === 'string' ? out.write(value, at + 4) : value.copy(out, at + 4);
      out.writeInt32BE(length, at);
      at += 4 + length;
    }
  }
  return out;
}
