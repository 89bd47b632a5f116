import fc from 'fast-check';
import { CAPABILITY_ID_PATTERN } from '../../restap.constants';
import { capabilityIdOf, TOOL_NAME_PATTERN, toolNameOf } from './tool-names';

/** Dotted capability ids as the explorer accepts them, rich in '_' and '-' next to the dots. */
const segment = fc
  .tuple(fc.constantFrom(...'abcXYZ'), fc.array(fc.constantFrom(...'az09_-_'), { maxLength: 8 }))
  .map(([head, tail]) => head + tail.join(''));
const capabilityId = fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => segments.join('.'));

describe('tool names: capability ids map one-to-one onto ^[a-zA-Z0-9_-]{1,64}$ and back', () => {
  it('maps the dots of text.reverse to text_reverse and back', () => {
    expect(toolNameOf('text.reverse')).toBe('text_reverse');
    expect(capabilityIdOf('text_reverse')).toBe('text.reverse');
  });

  it('keeps ids that differ only by "." and "_" apart (text.reverse, text_reverse, text_.reverse)', () => {
    const ids = ['text.reverse', 'text_reverse', 'text__reverse', 'text_.reverse', 'a.b_c', 'a_b.c', 'a-b.c'];
    const names = ids.map(toolNameOf);
    expect(new Set(names).size).toBe(ids.length);
    expect(names.map((n) => capabilityIdOf(n!))).toEqual(ids);
  });

  it('round-trips every valid id whose name fits: capabilityIdOf(toolNameOf(id)) === id', () => {
    fc.assert(
      fc.property(capabilityId, (id) => {
        expect(CAPABILITY_ID_PATTERN.test(id)).toBe(true);
        const name = toolNameOf(id);
        if (name === undefined) return id.replace(/_/g, '__').length > 64;
        expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(capabilityIdOf(name)).toBe(id);
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  it('never gives two ids one name', () => {
    fc.assert(
      fc.property(capabilityId, capabilityId, (a, b) => {
        const [x, y] = [toolNameOf(a), toolNameOf(b)];
        if (a !== b && x !== undefined) expect(x).not.toBe(y);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back only names it could have produced: toolNameOf(capabilityIdOf(name)) === name', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/), (name) => {
        const id = capabilityIdOf(name);
        if (id !== undefined) expect(toolNameOf(id)).toBe(name);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what no id maps to: a leading "_" (".x"), a dot before a digit, dots, too long', () => {
    expect(capabilityIdOf('_text')).toBeUndefined();
    expect(capabilityIdOf('text_1')).toBeUndefined();
    expect(capabilityIdOf('text.reverse')).toBeUndefined();
    expect(capabilityIdOf('a'.repeat(65))).toBeUndefined();
    expect(toolNameOf(`a${'.b'.repeat(32)}`)).toBeUndefined();
  });
});
