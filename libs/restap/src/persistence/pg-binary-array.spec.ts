import { binaryArray, PG_ELEMENT } from './pg-binary-array';

const hex = (buffer: Buffer): string => buffer.toString('hex');
/** The header array_recv reads: one dimension, no NULLs, the element oid, the length, lower bound 1. */
const header = (oid: number, length: number): string => ['00000001', '00000000', oid.toString(16).padStart(8, '0'), length.toString(16).padStart(8, '0'), '00000001'].join('');

describe('binaryArray (PostgreSQL binary array form, as array_recv reads it)', () => {
  it('writes text elements as their UTF-8 bytes, unescaped, each after its byte length', () => {
    const rows = [['a"b\\'], ['é']];
    expect(hex(binaryArray(PG_ELEMENT.text, rows, 0))).toBe(`${header(25, 2)}00000004${hex(Buffer.from('a"b\\'))}00000002c3a9`);
  });

  it('writes int4 elements as 4 big-endian bytes', () => {
    expect(hex(binaryArray(PG_ELEMENT.int4, [[0, 1], [0, 70_000]], 1))).toBe(`${header(23, 2)}000000040000000100000004${(70_000).toString(16).padStart(8, '0')}`);
  });

  it('writes bytea elements as they are', () => {
    expect(hex(binaryArray(PG_ELEMENT.bytea, [[Buffer.from([0, 255, 16])]], 0))).toBe(`${header(17, 1)}0000000300ff10`);
  });
});
