import { intOption, jsonOption, keyValues } from './cli.args';
import { styleFor, UsageError } from './cli.io';

describe('CLI argument helpers', () => {
  it('parse key=value pairs, keeping "=" inside values', () => {
    expect(keyValues(['a=1', 'b=x=y'], 'param')).toEqual({ a: '1', b: 'x=y' });
    expect(() => keyValues(['nope'], 'param')).toThrow(UsageError);
  });

  it('parse integers and JSON as usage errors when wrong', () => {
    expect(intOption('42', 'limit')).toBe(42);
    expect(() => intOption('-1', 'limit')).toThrow('--limit must be a non-negative integer');
    expect(jsonOption('{"a":1}', 'data')).toEqual({ a: 1 });
    expect(() => jsonOption('{a:1}', 'data')).toThrow('--data must be JSON');
  });

  it('style only on a TTY without NO_COLOR', () => {
    expect(styleFor({ write: () => true, isTTY: true }, {}).dim('x')).toBe('\u001b[2mx\u001b[22m');
    expect(styleFor({ write: () => true, isTTY: true }, { NO_COLOR: '1' }).dim('x')).toBe('x');
    expect(styleFor({ write: () => true }, {}).dim('x')).toBe('x');
  });
});
