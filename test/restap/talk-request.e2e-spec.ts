import { SESSION_ID_PATTERN } from 'nestjs-restap';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { startTalkFixture, TalkFixture } from '../fixtures/talk-app';
import { openTalkStream, postTalk } from '../fixtures/talk-sse';

const SSE = { Accept: 'text/event-stream' };
const id = (length: number, char = 'a'): string => char.repeat(length);

// Jest ignores the e2e project's testTimeout; PGlite alone can take 8 s to start.
jest.setTimeout(60_000);

describe('POST /talk request validation', () => {
  let db: TestDatabase;
  let app: TalkFixture;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startTalkFixture(db.target, { talk: { maxMessageLength: 20 } });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  async function expectError(res: Response, status: number, error: string, mentions?: string): Promise<void> {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({ error, message: expect.any(String) });
    if (mentions) expect(body.message).toContain(mentions);
  }

  describe('body: JSON {message, session_id?}, every error in the JSON error shape before any stream', () => {
    it.each([{}, SSE])('malformed JSON → 400 invalid_json (Accept %j)', async (headers) => {
      await expectError(await postTalk(app.talkUrl, '{"message": "hi"', headers), 400, 'invalid_json');
    });

    it('a content type other than JSON → 415', async () => {
      const res = await fetch(app.talkUrl, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
      await expectError(res, 415, 'unsupported_media_type');
    });

    it('a body over the limit (1 MiB by default) → 413', async () => {
      const res = await postTalk(app.talkUrl, { message: 'x', pad: 'y'.repeat(1024 * 1024) });
      await expectError(res, 413, 'payload_too_large');
    });

    it.each([
      ['missing', {}],
      ['null', { message: null }],
      ['a number', { message: 42 }],
      ['an array', { message: ['hi'] }],
      ['an object', { message: { text: 'hi' } }],
      ['empty', { message: '' }],
      ['only whitespace', { message: ' \n\t ' }],
      ['longer than talk.maxMessageLength', { message: 'x'.repeat(21) }],
      ['containing NUL', { message: 'a\u0000b' }],
    ])('message %s → 400 invalid_request naming "message"', async (_case, body) => {
      await expectError(await postTalk(app.talkUrl, body), 400, 'invalid_request', '"message"');
      await expectError(await postTalk(app.talkUrl, body, SSE), 400, 'invalid_request', '"message"');
    });

    it.each([['an array', '[]'], ['a string', '"hi"'], ['a number', '3'], ['null', 'null']])('a body that is %s → 400 invalid_request', async (_case, raw) => {
      await expectError(await postTalk(app.talkUrl, raw), 400, 'invalid_request');
    });

    it('message length counts characters, not UTF-16 units: 20 emoji fit in maxMessageLength 20', async () => {
      const res = await postTalk(app.talkUrl, { message: '😀'.repeat(20) });
      expect(res.status).toBe(200);
    });

    it('unknown fields are ignored', async () => {
      const res = await postTalk(app.talkUrl, { message: 'hi', temperature: 2, stream: true, nested: { a: 1 } });
      expect(res.status).toBe(200);
      expect((await res.json()).reply).toBe('echo: hi');
    });
  });

  describe('session_id must match ^[A-Za-z0-9._-]{16,128}$, else 400 invalid_session_id (spec, "Identifier format and entropy")', () => {
    it.each([
      [15, 400],
      [16, 200],
      [128, 200],
      [129, 400],
    ])('a %i-character session_id → %i, in the body and in the Restap-Session-Id header', async (length, status) => {
      const sessionId = id(length);
      for (const res of [
        await postTalk(app.talkUrl, { message: 'hi', session_id: sessionId }),
        await postTalk(app.talkUrl, { message: 'hi' }, { 'Restap-Session-Id': sessionId }),
      ]) {
        if (status === 400) await expectError(res, 400, 'invalid_session_id');
        else expect((await res.json()).session_id).toBe(sessionId);
      }
    });

    it('every allowed character class is accepted: letters, digits, ".", "_" and "-"', async () => {
      const sessionId = 'AZaz09._-AZaz09._-';
      expect((await (await postTalk(app.talkUrl, { message: 'hi', session_id: sessionId })).json()).session_id).toBe(sessionId);
    });

    it.each([' ', '/', '+', '=', '~', '!', '@', '#', '$', '%', ':', ',', ';', '*', '"', "'", '\\', '(', '[', '{', '<', '?', '&', '|', '^', '`', '\t', '\n', 'é', 'ß', '😀', '\u0000'])(
      'a session_id containing %j → 400 invalid_session_id',
      async (bad) => {
        const sessionId = `abcdefgh${bad}ijklmnop`;
        await expectError(await postTalk(app.talkUrl, { message: 'hi', session_id: sessionId }), 400, 'invalid_session_id');
        // Headers can only carry visible ASCII and spaces/tabs (which HTTP trims at the ends, not inside).
        if (/^[\x20-\x7e\t]$/.test(bad)) {
          await expectError(await postTalk(app.talkUrl, { message: 'hi' }, { 'Restap-Session-Id': sessionId }), 400, 'invalid_session_id');
        }
      },
    );

    it.each([['a number', 1234567890123456789], ['true', true], ['an array', [id(20)]], ['an object', { id: id(20) }]])(
      'a session_id that is %s, not a string → 400 invalid_session_id',
      async (_case, value) => {
        await expectError(await postTalk(app.talkUrl, { message: 'hi', session_id: value }), 400, 'invalid_session_id');
      },
    );

    it('a null session_id counts as absent: a new one is minted', async () => {
      const body = await (await postTalk(app.talkUrl, { message: 'hi', session_id: null })).json();
      expect(body.session_id).toMatch(SESSION_ID_PATTERN);
    });

    it('the same 400 invalid_session_id for SSE requests, as JSON, before any stream', async () => {
      const json = await postTalk(app.talkUrl, { message: 'hi', session_id: id(15) });
      const sse = await postTalk(app.talkUrl, { message: 'hi', session_id: id(15) }, SSE);
      expect(sse.status).toBe(400);
      expect(sse.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await sse.json()).toEqual(await json.json());
      const header = await postTalk(app.talkUrl, { message: 'hi' }, { ...SSE, 'Restap-Session-Id': id(129) });
      await expectError(header, 400, 'invalid_session_id');
    });

    it('the Restap-Session-Id header wins over the body', async () => {
      const fromHeader = `header-${id(16, 'h')}`;
      const fromBody = `body-${id(16, 'b')}`;
      const res = await postTalk(app.talkUrl, { message: 'hi', session_id: fromBody }, { 'Restap-Session-Id': fromHeader });
      expect((await res.json()).session_id).toBe(fromHeader);
      expect(app.brain.contexts.at(-1)?.sessionId).toBe(fromHeader);
    });

    it('a malformed body session_id is rejected even when the header is valid (never silently shadowed)', async () => {
      const res = await postTalk(app.talkUrl, { message: 'hi', session_id: 'short' }, { 'Restap-Session-Id': id(20) });
      await expectError(res, 400, 'invalid_session_id');
    });
  });

  describe('session_id minting (spec: minted ids MUST carry ≥122 bits and be returned)', () => {
    it('mints a fresh, well-formed session_id per request without one, returned in the JSON body', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 25; i++) {
        const body = await (await postTalk(app.talkUrl, { message: `hi ${i}` })).json();
        expect(body.session_id).toMatch(SESSION_ID_PATTERN);
        // base64url of 24 random bytes: 32 characters, 192 bits.
        expect(body.session_id).toMatch(/^[A-Za-z0-9_-]{32}$/);
        ids.add(body.session_id);
      }
      expect(ids.size).toBe(25);
    });

    it('returns a minted session_id on message.start and done when streaming, the same on both', async () => {
      const stream = await openTalkStream(app.talkUrl, { message: 'hi' });
      const frames = (await stream.rest()).filter((f) => f.event);
      const start = frames.find((f) => f.event === 'message.start')?.data;
      const done = frames.find((f) => f.event === 'done')?.data;
      expect(start?.session_id).toMatch(SESSION_ID_PATTERN);
      expect(done?.session_id).toBe(start?.session_id);
    });

    it('echoes a client session_id back unchanged', async () => {
      const sessionId = 'f3bb16ab-295c-4f32-9856-4280fd541b93';
      expect((await (await postTalk(app.talkUrl, { message: 'hi', session_id: sessionId })).json()).session_id).toBe(sessionId);
    });
  });
});
