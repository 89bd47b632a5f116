import { InvalidRequestException, InvalidSinceException } from '../../exceptions';
import { parseIdempotencyKey, parseLimit, parseNewsItem, parseSince, requestHash } from './news-request.parser';

describe('parseNewsItem (POST /news body)', () => {
  it('keeps every field as sent, in order, less session_id', () => {
    const body = { type: 'reply', zeta: 1, session_id: 'abcdefghijklmnop', from: 'agent-b', data: { a: [1, null] } };
    const { type, fields } = parseNewsItem(body, 200);
    expect(type).toBe('reply');
    expect(JSON.stringify(fields)).toBe('{"type":"reply","zeta":1,"from":"agent-b","data":{"a":[1,null]}}');
  });

  it('does not change the caller\'s object', () => {
    const body = { type: 'reply', session_id: 'abcdefghijklmnop' };
    parseNewsItem(body, 200);
    expect(body.session_id).toBe('abcdefghijklmnop');
  });

  it.each([
    [{}, /type is required/],
    [{ type: ' ' }, /type is required/],
    [{ type: 'x'.repeat(11) }, /at most 10/],
    [{ type: 'r', message: 1 }, /message must be a string/],
    [{ type: 'r', timestamp: 1 }, /timestamp is assigned by the server/],
    [{ type: 'r', news_id: 'news_1' }, /news_id is assigned by the server/],
    [[], /JSON object/],
    [null, /JSON object/],
  ])('rejects %j with invalid_request', (body, message) => {
    expect(() => parseNewsItem(body, 10)).toThrow(InvalidRequestException);
    expect(() => parseNewsItem(body, 10)).toThrow(message);
  });

  it('keeps a "__proto__" field as an ordinary field', () => {
    const { fields } = parseNewsItem(JSON.parse('{"type":"t","__proto__":{"x":1}}'), 200);
    expect(JSON.stringify(fields)).toBe('{"type":"t","__proto__":{"x":1}}');
  });
});

describe('parseSince / parseLimit (GET /news query)', () => {
  it('defaults since to 0 and accepts non-negative integers', () => {
    expect(parseSince(undefined)).toBe(0);
    expect(parseSince('1703012345000')).toBe(1703012345000);
  });

  it.each(['-1', '1.0', ' 1', '1e3', '', '9007199254740993'])('rejects since=%j with invalid_since', (since) => {
    expect(() => parseSince(since)).toThrow(InvalidSinceException);
  });

  it('rejects a repeated since (an array) with invalid_since', () => {
    expect(() => parseSince(['1', '2'])).toThrow(InvalidSinceException);
  });

  it('defaults limit and bounds it to 1..max', () => {
    expect(parseLimit(undefined, 100, 1000)).toBe(100);
    expect(parseLimit('1000', 100, 1000)).toBe(1000);
    for (const bad of ['0', '1001', 'x', '', ['1']]) expect(() => parseLimit(bad, 100, 1000)).toThrow(InvalidRequestException);
  });
});

describe('parseIdempotencyKey', () => {
  it('accepts 1–255 visible ASCII characters and nothing else', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('f3bb16ab-295c-4f32-9856-4280fd541b93')).toBe('f3bb16ab-295c-4f32-9856-4280fd541b93');
    for (const bad of ['', 'a b', 'é', 'k'.repeat(256), ['a', 'b']]) {
      expect(() => parseIdempotencyKey(bad)).toThrow(InvalidRequestException);
    }
  });
});

describe('requestHash', () => {
  it('is the same for the same item with keys in another order, different for another item', () => {
    const a = requestHash({ type: 't', data: { x: 1, y: [1, { b: 2, a: 1 }] } });
    const b = requestHash({ data: { y: [1, { a: 1, b: 2 }], x: 1 }, type: 't' });
    const c = requestHash({ type: 't', data: { x: 2, y: [1, { a: 1, b: 2 }] } });
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });
});
