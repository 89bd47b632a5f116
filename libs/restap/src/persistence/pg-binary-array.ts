import { Buffer } from 'node:buffer';

/** Element type oids of the arrays {@link binaryArray} writes. */
export const PG_ELEMENT = { int4: 23, text: 25, bytea: 17 } as const;

/** A value of a {@link binaryArray}: an int4 as a number, a text as a string, a bytea as a Buffer. */
export type BinaryArrayValue = number | string | Buffer;

/**
 * Column `column` of `rows` as a one-dimensional array without NULLs in PostgreSQL's binary form
 * (what `array_recv` reads), for a `$n::<type>[]` parameter: node-postgres sends a Buffer parameter
 * as it is, in binary. An array given as such is written as an array literal instead: each text
 * element escaped by two regular-expression replaces, each bytea element hex-encoded, and the whole
 * measured again.
 *
 * @example
 * await pool.query('SELECT unnest($1::text[])', [binaryArray(PG_ELEMENT.text, [['a'], ['b"c']], 0)]);
 */
export function binaryArray(element: number, rows: ReadonlyArray<readonly BinaryArrayValue[]>, column: number): Buffer {
  let size = 20 + 4 * rows.length;
  for (const row of rows) {
    const value = row[column];
    size += typeof value === 'number' ? 4 : typeof value === 'string' ? Buffer.byteLength(value) : value.length;
  }
  const out = Buffer.allocUnsafe(size);
  int32(out, 0, 1); // dimensions
  int32(out, 4, 0); // no NULLs
  int32(out, 8, element);
  int32(out, 12, rows.length);
  int32(out, 16, 1); // lower bound
  let at = 20;
  for (const row of rows) {
    const value = row[column];
    if (typeof value === 'number') {
      int32(out, at, 4);
      int32(out, at + 4, value);
      at += 8;
    } else {
      const length = typeof value === 'string' ? out.write(value, at + 4) : value.copy(out, at + 4);
      int32(out, at, length);
      at += 4 + length;
    }
  }
  return out;
}

/** Big-endian, as Buffer.writeInt32BE without its argument checks (the values here are lengths, ids and oids). */
function int32(out: Buffer, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = value >>> 16;
  out[at + 2] = value >>> 8;
  out[at + 3] = value;
}
