import fc from 'fast-check';
import type { Request } from 'express';
import { InvalidSessionIdException, NotAcceptableException, RestapException } from '../../../exceptions';
import { SESSION_ID_PATTERN } from '../../../restap.constants';
import { parseIdempotencyKey, parseLimit, parseNewsItem, parseSince, requestHash } from '../../../core/news/news-request.parser';
import { parseSessionId, resolveSessionId } from '../../../sessions/session-id';
import { parseTalkRequest } from '../talk/talk-request.parser';
import { negotiateTalkFormat } from '../talk/talk.negotiator';
import { withinDepth } from '../../../text/json-depth';

// Issue 6, "Tests must show": property-based tests of the request validators and the Accept
// negotiation. Whatever a client sends, a validator either returns a value that satisfies its
// contract or throws a 400-class RestapException — never anything else (which would be a 5xx).

const RUNS = { numRuns: 300 };
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-';
const validSessionId = fc.string({ unit: fc.constantFrom(...ID_CHARS), minLength: 16, maxLength: 128 });
const anyText = fc.string({ unit: 'binary', maxLength: 200 });
const request = (body: unknown, headers: Record<string, unknown> = {}, query: Record<string, unknown> = {}): Request =>
  ({ body, headers, query, url: Object.keys(query).length > 0 ? '/?query' : '/' }) as unknown as Request;

/** Runs `fn`; a throw must be a RestapException with one of `statuses`. */
function outcome<T>(fn: () => T, statuses: number[]): { ok: true; value: T } | { ok: false; error: RestapException } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    expect(error).toBeInstanceOf(RestapException);
    expect(statuses).toContain((error as RestapException).getStatus());
    return { ok: false, error: error as RestapException };
  }
}

describe('session_id validation (spec, "Identifier format and entropy")', () => {
  it('accepts exactly the strings matching ^[A-Za-z0-9._-]{16,128}$, anything else is 400 invalid_session_id', () => {
    const candidate = fc.oneof(validSessionId, fc.string({ unit: fc.constantFrom(...ID_CHARS, ' ', '/', '%', 'é', '\n'), maxLength: 140 }), fc.anything());
    fc.assert(
      fc.property(candidate, (value) => {
        const result = outcome(() => parseSessionId(value), [400]);
        expect(result.ok).toBe(typeof value === 'string' && SESSION_ID_PATTERN.test(value));
        if (!result.ok) expect(result.error).toBeInstanceOf(InvalidSessionIdException);
      }),
      RUNS,
    );
  });

  it('the header wins over query and body, and any malformed value present is refused, never shadowed', () => {
    fc.assert(
      fc.property(fc.option(validSessionId), fc.option(fc.oneof(validSessionId, anyText)), fc.option(fc.oneof(validSessionId, anyText)), (header, query, body) => {
        const req = request(undefined, header === null ? {} : { 'restap-session-id': header }, query === null ? {} : { session_id: query });
        const result = outcome(() => resolveSessionId(req, body === null ? {} : { session_id: body }), [400]);
        const present = [header, query, body].filter((v): v is string => v !== null);
        if (present.every((v) => SESSION_ID_PATTERN.test(v))) expect(result).toEqual({ ok: true, value: present[0] });
        else expect(result.ok).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('POST /talk body (talk-request.parser)', () => {
  it('any JSON body: either a non-blank message of at most maxLength code points without NUL, or 400', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ message: fc.oneof(anyText, fc.jsonValue()) }), fc.record({ message: anyText, session_id: fc.oneof(validSessionId, fc.jsonValue()) })), fc.integer({ min: 1, max: 50 }), (body, max) => {
        const result = outcome(() => parseTalkRequest(request(body), max), [400]);
        if (!result.ok) return;
        const { message, sessionId } = result.value;
        expect(typeof message).toBe('string');
        expect(message.trim()).not.toBe('');
        expect([...message].length).toBeLessThanOrEqual(max);
        expect(message.includes('\u0000')).toBe(false);
        if (sessionId !== undefined) expect(sessionId).toMatch(SESSION_ID_PATTERN);
      }),
      RUNS,
    );
  });

  it('a valid message comes back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((m) => m.trim() !== '' && !m.includes('\u0000')), (message) => {
        expect(parseTalkRequest(request({ message }), 1000)).toEqual({ message });
      }),
      RUNS,
    );
  });
});

describe('POST /news body and GET /news parameters (news-request.parser)', () => {
  it('any JSON body: either a non-empty type within maxTypeLength with every other field kept as sent (less session_id), or 400', () => {
    const body = fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom('type', 'from', 'message', 'in_reply_to', 'data', 'session_id', 'x'), fc.jsonValue()));
    fc.assert(
      fc.property(body, fc.integer({ min: 1, max: 30 }), (value, max) => {
        const result = outcome(() => parseNewsItem(value, max), [400]);
        if (!result.ok) return;
        const { type, fields } = result.value;
        expect(type.trim()).not.toBe('');
        expect(type.length).toBeLessThanOrEqual(max);
        expect(fields).not.toHaveProperty('session_id');
        const { session_id: _dropped, ...rest } = value as Record<string, unknown>;
        expect(JSON.stringify(fields)).toBe(JSON.stringify(rest));
      }),
      RUNS,
    );
  });

  it('requestHash ignores key order at every level', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 3 })), (fields) => {
        const reversed = Object.fromEntries(Object.entries(fields).reverse());
        expect(requestHash(reversed).equals(requestHash(fields))).toBe(true);
      }),
      RUNS,
    );
  });

  it('since: any safe non-negative integer round-trips; anything else (arrays, signs, exponents, junk) is 400', () => {
    fc.assert(fc.property(fc.maxSafeNat(), (n) => expect(parseSince(String(n))).toBe(n)), RUNS);
    fc.assert(
      fc.property(fc.oneof(anyText, fc.array(fc.string()), fc.jsonValue()), (value) => {
        const result = outcome(() => parseSince(value), [400]);
        if (result.ok) expect(Number.isSafeInteger(result.value) && result.value >= 0).toBe(true);
      }),
      RUNS,
    );
  });

  it('limit: absent gives the default, else an integer from 1 to max or 400', () => {
    fc.assert(
      fc.property(fc.option(fc.oneof(anyText, fc.nat().map(String), fc.array(fc.string()))), fc.integer({ min: 1, max: 1000 }), (value, max) => {
        const result = outcome(() => parseLimit(value ?? undefined, Math.min(10, max), max), [400]);
        if (value === null) expect(result).toEqual({ ok: true, value: Math.min(10, max) });
        else if (result.ok) expect(result.value >= 1 && result.value <= max && String(result.value) === String(Number(value))).toBe(true);
      }),
      RUNS,
    );
  });

  it('Idempotency-Key: one header of 1–255 visible ASCII characters comes back as is, anything else is 400', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 255 }), anyText, fc.array(fc.string(), { minLength: 2, maxLength: 2 })), (value) => {
        const result = outcome(() => parseIdempotencyKey(value), [400]);
        expect(result.ok).toBe(typeof value === 'string' && /^[\x21-\x7e]{1,255}$/.test(value));
        if (result.ok) expect(result.value).toBe(value);
      }),
      RUNS,
    );
  });

  it('limits.maxJsonDepth: nesting d levels deep passes exactly when d <= max', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 100 }), fc.boolean(), (depth, max, objects) => {
        let value: unknown = 1;
        for (let i = 0; i < depth; i++) value = objects ? { a: value } : [value];
        expect(withinDepth(value, max)).toBe(depth <= max);
      }),
      RUNS,
    );
  });
});

describe('Accept negotiation of /talk (spec, "Content negotiation")', () => {
  const mediaRange = fc.oneof(
    fc.constantFrom('application/json', 'text/event-stream', '*/*', 'application/*', 'text/*', 'text/html', 'image/png', 'application/xml', 'TEXT/EVENT-STREAM'),
    fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z+.-]{1,10}$/)).map(([t, s]) => `${t}/${s}`),
  );
  const entry = fc.tuple(mediaRange, fc.option(fc.constantFrom('0', '0.1', '0.5', '0.9', '1', '1.0', 'x'))).map(([range, q]) => (q === null ? range : `${range};q=${q}`));
  const acceptHeader = fc.oneof(fc.array(entry, { maxLength: 5 }).map((list) => list.join(', ')), anyText);

  it('any Accept header: json, sse or 406 not_acceptable — never another error; SSE only when streaming is on and text/event-stream is named', () => {
    fc.assert(
      fc.property(acceptHeader, fc.boolean(), (accept, streaming) => {
        let format: string;
        try {
          format = negotiateTalkFormat(accept, streaming);
        } catch (error) {
          expect(error).toBeInstanceOf(NotAcceptableException);
          return;
        }
        expect(['json', 'sse']).toContain(format);
        if (format === 'sse') {
          expect(streaming).toBe(true);
          expect(accept.toLowerCase()).toContain('text/event-stream');
        }
      }),
      RUNS,
    );
  });

  it('no Accept, an empty one, or one that allows application/json (or */*) at q > 0 without naming text/event-stream: always JSON', () => {
    const jsonish = fc.array(fc.constantFrom('application/json', '*/*', 'application/*', 'application/json;q=0.5', 'text/html', 'image/png;q=0.2'), { minLength: 1, maxLength: 4 })
      .filter((list) => list.some((e) => /^(application\/json|\*\/\*|application\/\*)/.test(e)));
    fc.assert(
      fc.property(fc.oneof(fc.constant(undefined), fc.constantFrom('', '   '), jsonish.map((l) => l.join(', '))), fc.boolean(), (accept, streaming) => {
        expect(negotiateTalkFormat(accept, streaming)).toBe('json');
      }),
      RUNS,
    );
  });

  it('text/event-stream listed first at full quality streams whenever streaming is on (whatever other types follow)', () => {
    // A second, differently weighted text/event-stream entry is left out: which of the two counts is the parser's choice.
    fc.assert(
      fc.property(fc.array(entry.filter((e) => !e.toLowerCase().startsWith('text/event-stream')), { maxLength: 4 }), (rest) => {
        expect(negotiateTalkFormat(['text/event-stream', ...rest].join(', '), true)).toBe('sse');
      }),
      RUNS,
    );
  });
});
