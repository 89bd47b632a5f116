import { Controller, HttpCode, Post } from '@nestjs/common';
import { RestapBootstrapError, SESSION_ID_PATTERN } from 'nestjs-restap';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RestapSql, type RestapStatement } from '../../libs/restap/src/persistence/restap-sql';
import { usingServer, useTestDatabase } from '../support/test-database';
import { CapturingLogger, createTalkApp, startTalkFixture, storedTurns, TalkFixture } from '../fixtures/talk-app';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';

// Jest ignores the e2e project's testTimeout; PGlite alone can take 8 s to start.
jest.setTimeout(60_000);

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const talk = async (app: TalkFixture, message: string, sessionId?: string): Promise<{ reply: string; session_id: string }> => {
  const res = await postTalk(app.talkUrl, { message, ...(sessionId ? { session_id: sessionId } : {}) });
  expect(res.status).toBe(200);
  return res.json();
};
const countRows = async (app: TalkFixture): Promise<number> => {
  const [row] = await app.app.get(DataSource).query(`SELECT (SELECT count(*) FROM restap_sessions) + (SELECT count(*) FROM restap_turns) AS n`);
  return Number(row.n);
};

describe('Sessions on /talk (spec, "Sessions (optional)")', () => {
  const db = useTestDatabase({ onDisk: true }); // the embedded database must survive a restart
  let sessionId: string;

  describe('history continuity, stored in Postgres', () => {
    let app: TalkFixture;
    const logger = new CapturingLogger();
    beforeAll(async () => {
      app = await startTalkFixture(db.target, { talk: { historyLimit: 4, systemPrompt: 'You are a test.' }, logger });
    });
    afterAll(() => app?.close());

    it('a second request with the returned session_id sees the first turn in ctx.history, oldest first', async () => {
      app.brain.behaviour = (ctx) => `reply ${ctx.history.length / 2 + 1}`;
      const first = await talk(app, 'My name is Ada.');
      sessionId = first.session_id;
      expect(sessionId).toMatch(SESSION_ID_PATTERN);
      expect(first.reply).toBe('reply 1');
      await talk(app, 'What is my name?', sessionId);
      const ctx = app.brain.contexts.at(-1)!;
      expect(ctx.sessionId).toBe(sessionId);
      expect(ctx.history.map((t) => [t.role, t.content, t.status])).toEqual([
        ['user', 'My name is Ada.', 'complete'],
        ['assistant', 'reply 1', 'complete'],
      ]);
      expect(ctx.history[1].messageId).toMatch(/^msg_/);
      expect(ctx.toMessages()).toEqual([
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'reply 1' },
        { role: 'user', content: 'What is my name?' },
      ]);
    });

    it('an SSE turn continues the same thread, and the assistant message id stored is the streamed one', async () => {
      const stream = await openTalkStream(app.talkUrl, { message: 'Third.' }, { 'Restap-Session-Id': sessionId });
      const frames = eventsOnly(await stream.rest());
      expect(frames[0].data?.session_id).toBe(sessionId);
      const turns = await storedTurns(app, sessionId);
      expect(turns).toHaveLength(6);
      expect(turns[5]).toMatchObject({ role: 'assistant', status: 'complete', message_id: frames[0].data?.id });
    });

    it('ctx.history is capped by talk.historyLimit, keeping the newest turns', async () => {
      await talk(app, 'Fourth.', sessionId);
      expect(app.brain.contexts.at(-1)!.history.map((t) => t.content)).toEqual(['What is my name?', 'reply 2', 'Third.', 'reply 3']);
    });

    it('concurrent turns of 24 sessions (their reads and writes share statements) each see only their own history', async () => {
      const before = app.brain.behaviour;
      app.brain.behaviour = (ctx) => `seen: ${ctx.history.map((t) => t.content).join(' | ')}`;
      const firsts = await Promise.all(Array.from({ length: 24 }, (_, n) => talk(app, `I am client ${n}.`)));
      expect(new Set(firsts.map((f) => f.session_id)).size).toBe(24);
      const seconds = await Promise.all(firsts.map((first, n) => talk(app, `Who am I? (${n})`, first.session_id)));
      seconds.forEach((second, n) => expect(second.reply).toBe(`seen: I am client ${n}. | seen: `));
      app.brain.behaviour = before;
    });

    it('an unknown but well-formed session_id starts a new thread under that id', async () => {
      const fresh = 'client-chosen-0123456789abcdef';
      expect((await talk(app, 'Hello', fresh)).session_id).toBe(fresh);
      expect(app.brain.contexts.at(-1)!.history).toEqual([]);
      expect(await storedTurns(app, fresh)).toHaveLength(2);
    });

    it('stores only the SHA-256 of the session_id, never the raw value', async () => {
      const ds = app.app.get(DataSource);
      const sessions = await ds.query(`SELECT id, key_hash FROM restap_sessions`);
      expect(sessions.some((s: { key_hash: Buffer }) => Buffer.from(s.key_hash).equals(sha256(sessionId)))).toBe(true);
      const everything = JSON.stringify([sessions, await ds.query(`SELECT * FROM restap_turns`)]);
      expect(everything).not.toContain(sessionId);
    });

    it('storage unavailable while loading history → 503 storage_unavailable with Retry-After, before any stream', async () => {
      const sql = app.app.get(RestapSql);
      const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      const spy = jest.spyOn(sql, 'query').mockRejectedValue(down);
      try {
        for (const accept of ['application/json', 'text/event-stream']) {
          const res = await postTalk(app.talkUrl, { message: 'hi', session_id: sessionId }, { Accept: accept });
          expect(res.status).toBe(503);
          expect(res.headers.get('retry-after')).toBe('1');
          expect(await res.json()).toEqual({ error: 'storage_unavailable', message: expect.any(String) });
        }
      } finally {
        spy.mockRestore();
      }
    });

    it('storage unavailable while saving → 503 as JSON; error (storage_unavailable) then done as SSE', async () => {
      const sql = app.app.get(RestapSql);
      const down = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
      const original = sql.query.bind(sql);
      const spy = jest.spyOn(sql, 'query').mockImplementation((stmt: RestapStatement, params: unknown[]) =>
        // The turn's end: stored as it opened, then closed (talk.turns-close) when the reply is done.
        /^talk\.turns-(close|append)/.test(stmt.purpose) ? Promise.reject(down) : original(stmt, params));
      try {
        expect((await postTalk(app.talkUrl, { message: 'hi' })).status).toBe(503);
        const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'hi' })).rest());
        // Issue 32, item 16: no message.end for a reply that is not stored (it used to come before the error).
        expect(frames.map((f) => f.event)).toEqual(['message.start', 'message.delta', 'error', 'done']);
        expect(frames[2].data).toMatchObject({ error: 'storage_unavailable' });
      } finally {
        spy.mockRestore();
      }
    });

    it('never writes a session_id to the log, even when things fail', async () => {
      app.brain.behaviour = () => {
        throw new Error('handler exploded');
      };
      await postTalk(app.talkUrl, { message: 'boom' }, { 'Restap-Session-Id': sessionId });
      await openTalkStream(app.talkUrl, { message: 'boom' }, { 'Restap-Session-Id': sessionId }).then((s) => s.rest());
      expect(logger.lines.join('\n')).toContain('handler exploded');
      expect(logger.lines.join('\n')).not.toContain(sessionId);
      app.brain.behaviour = (ctx) => `reply ${ctx.history.length / 2 + 1}`;
    });
  });

  describe('history survives an application restart on the same database', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startTalkFixture(db.target, { talk: { historyLimit: 50 } });
    });
    afterAll(() => app?.close());

    it('a new process continues the session from the database', async () => {
      await talk(app, 'After restart.', sessionId);
      const history = app.brain.contexts.at(-1)!.history.map((t) => t.content);
      expect(history.slice(0, 4)).toEqual(['My name is Ada.', 'reply 1', 'What is my name?', 'reply 2']);
    });

    (usingServer() ? it : it.skip)('any replica continues any session (two apps on one database)', async () => {
      const replica = await startTalkFixture(db.target);
      try {
        replica.brain.behaviour = () => 'from replica';
        await talk(replica, 'Hello replica.', sessionId);
        expect(replica.brain.contexts.at(-1)!.history.at(-2)?.content).toBe('After restart.');
        await talk(app, 'Back.', sessionId);
        expect(app.brain.contexts.at(-1)!.history.at(-1)?.content).toBe('from replica');
      } finally {
        await replica.close();
      }
    });
  });

  describe('with talk.sessions off: stateless, no minting, no storage', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startTalkFixture(db.target, { talk: { sessions: false } });
    });
    afterAll(() => app?.close());

    it('returns no session_id (JSON body, message.start, done) and stores nothing', async () => {
      const before = await countRows(app);
      const res = await postTalk(app.talkUrl, { message: 'hi' });
      const body = await res.json();
      expect(body).toEqual({ reply: 'echo: hi', message_id: expect.any(String) });
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'hi' })).rest());
      expect(frames[0].data).toEqual({ event: 'message.start', id: expect.any(String) });
      expect(frames.at(-1)?.data).toEqual({ event: 'done' });
      expect(await countRows(app)).toBe(before);
    });

    it('ignores a valid session_id (no history, not echoed) but still rejects a malformed one', async () => {
      await talk(app, 'one', sessionId);
      const body = await talk(app, 'two', sessionId);
      expect(body.session_id).toBeUndefined();
      expect(app.brain.contexts.at(-1)!.sessionId).toBeUndefined();
      expect(app.brain.contexts.at(-1)!.history).toEqual([]);
      expect((await postTalk(app.talkUrl, { message: 'hi', session_id: 'short' })).status).toBe(400);
    });

    it('the catalog says sessions are not supported', async () => {
      const catalog = await (await fetch(`${app.url}/.well-known/restap.json`)).json();
      expect(catalog.capabilities.find((c: { id: string }) => c.id === 'talk').sessions).toEqual({ supported: false });
    });
  });

  describe('startup', () => {
    it('talk enabled with no @Talk() method fails startup with a clear message', async () => {
      const app = await createTalkApp(db.target, { brain: false });
      try {
        await expect(app.init()).rejects.toThrow(RestapBootstrapError);
        await expect(app.init()).rejects.toThrow(/no provider method has @Talk\(\).*talk: false/);
      } finally {
        await app.close();
      }
    });

    it('with talk: false the module serves no /talk: the host keeps the path, the catalog has no talk', async () => {
      @Controller()
      class HostTalkController {
        @Post('talk')
        @HttpCode(200)
        mine(): { host: boolean } {
          return { host: true };
        }
      }
      const app = await startTalkFixture(db.target, { talk: false, brain: false, controllers: [HostTalkController] });
      try {
        const res = await fetch(app.talkUrl, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'not json' });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ host: true });
        const catalog = await (await fetch(`${app.url}/.well-known/restap.json`)).json();
        expect(catalog.capabilities.map((c: { id: string }) => c.id)).not.toContain('talk');
      } finally {
        await app.close();
      }
    });
  });
});
