import { ForbiddenException } from '@nestjs/common';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Observable, from, interval, map, of } from 'rxjs';
import type { TalkChunk } from 'nestjs-restap';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { eventually, startTalkFixture, storedTurns, TalkFixture } from '../fixtures/talk-app';
import { eventsOnly, openTalkStream, postTalk, SseFrame } from '../fixtures/talk-sse';

const HEARTBEAT_MS = 100;
const TIMEOUT_MS = 2500;
const names = (frames: SseFrame[]): Array<string | undefined> => eventsOnly(frames).map((f) => f.event);

// Jest ignores the e2e project's testTimeout; PGlite alone can take 8 s to start.
jest.setTimeout(60_000);

describe('POST /talk streaming (spec, "Streaming /talk responses")', () => {
  let db: TestDatabase;
  let app: TalkFixture;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startTalkFixture(db.target, { talk: { heartbeatMs: HEARTBEAT_MS, timeoutMs: TIMEOUT_MS, systemPrompt: 'Be brief.', events: ['status'] } });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  describe('wire format (spec, "SSE wire format")', () => {
    it('sends text/event-stream, no-cache/no-transform, X-Accel-Buffering: no', async () => {
      const stream = await openTalkStream(app.talkUrl, { message: 'hi' });
      await stream.rest();
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
      expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
      expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    });

    it('writes message.start → message.delta* → message.end → done, each "event:" + one "data:" line with "event" repeated + a blank line', async () => {
      app.brain.behaviour = () => of('Hello ', 'there!');
      const stream = await openTalkStream(app.talkUrl, { message: 'Say hello' });
      const frames = eventsOnly(await stream.rest());
      const [{ data: start }] = frames;
      const id = start?.id as string;
      const session = start?.session_id as string;
      const expected = [
        `event: message.start\ndata: {"event":"message.start","id":"${id}","session_id":"${session}"}\n\n`,
        `event: message.delta\ndata: {"event":"message.delta","id":"${id}","text":"Hello "}\n\n`,
        `event: message.delta\ndata: {"event":"message.delta","id":"${id}","text":"there!"}\n\n`,
        `event: message.end\ndata: {"event":"message.end","id":"${id}"}\n\n`,
        `event: done\ndata: {"event":"done","session_id":"${session}"}\n\n`,
      ].join('');
      expect(stream.raw().replace(/: heartbeat\n\n/g, '')).toBe(expected);
      expect(id).toMatch(/^msg_[A-Za-z0-9_-]+$/);
      expect(app.brain.contexts.at(-1)?.messageId).toBe(id);
    });

    it('uses one message id across message.start, every message.delta and message.end', async () => {
      app.brain.behaviour = () => of('a', 'b', 'c', 'd');
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'hi' })).rest());
      const ids = new Set(frames.filter((f) => f.event?.startsWith('message.')).map((f) => f.data?.id));
      expect(ids.size).toBe(1);
      expect(frames.filter((f) => f.event === 'message.delta').map((f) => f.data?.text).join('')).toBe('abcd');
    });
  });

  describe('every handler return type streams the same reply', () => {
    const sources: Array<[string, () => unknown]> = [
      ['string', () => 'one two'],
      ['Promise<string>', async () => 'one two'],
      ['Observable<string>', () => of('one ', 'two')],
      ['AsyncIterable<string>', async function* () { yield 'one '; yield 'two'; }],
      ['Observable<TalkChunk>', (): Observable<TalkChunk> => from<TalkChunk[]>([{ event: 'message.delta', text: 'one ' }, { event: 'message.delta', text: 'two' }])],
      ['Promise<AsyncIterable> (an async method returning a stream)', async () => (async function* () { yield 'one '; yield 'two'; })()],
    ];
    it.each(sources)('%s → JSON reply and SSE deltas "one two"', async (_kind, behaviour) => {
      app.brain.behaviour = behaviour as typeof app.brain.behaviour;
      expect((await (await postTalk(app.talkUrl, { message: 'hi' })).json()).reply).toBe('one two');
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'hi' })).rest());
      expect(frames.filter((f) => f.event === 'message.delta').map((f) => f.data?.text).join('')).toBe('one two');
    });
  });

  it('passes optional events (status, tool.start/delta/end, artifact) through in order; JSON gets only the text', async () => {
    app.brain.behaviour = (): Observable<string | TalkChunk> =>
      from<Array<string | TalkChunk>>([
        { event: 'status', message: 'Thinking…' },
        { event: 'tool.start', name: 'search', id: 't1' },
        { event: 'tool.delta', name: 'search', text: 'query: cats' },
        { event: 'tool.end', name: 'search', id: 't1' },
        'Cats ',
        { event: 'artifact', kind: 'image', url: 'https://example.com/cat.png' },
        'purr.',
      ]);
    const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'cats?' })).rest());
    expect(names(frames)).toEqual(['message.start', 'status', 'tool.start', 'tool.delta', 'tool.end', 'message.delta', 'artifact', 'message.delta', 'message.end', 'done']);
    expect(frames[1].data).toEqual({ event: 'status', message: 'Thinking…' });
    expect(frames[2].data).toEqual({ event: 'tool.start', name: 'search', id: 't1' });
    expect(frames[6].data).toEqual({ event: 'artifact', kind: 'image', url: 'https://example.com/cat.png' });
    expect((await (await postTalk(app.talkUrl, { message: 'cats?' })).json()).reply).toBe('Cats purr.');
  });

  it('message.start arrives before a handler that waits 1 s has produced anything', async () => {
    app.brain.behaviour = async function* () {
      await sleep(1000);
      yield 'late';
    };
    const stream = await openTalkStream(app.talkUrl, { message: 'hi' });
    const start = await stream.next();
    expect(start?.event).toBe('message.start');
    expect(start!.at).toBeLessThan(600);
    const delta = eventsOnly(await stream.rest()).find((f) => f.event === 'message.delta');
    expect(delta!.at).toBeGreaterThanOrEqual(1000);
  });

  it(`keeps an idle stream alive with a heartbeat comment every heartbeatMs (${HEARTBEAT_MS} ms here)`, async () => {
    app.brain.behaviour = () => sleep(1000).then(() => 'done waiting');
    const stream = await openTalkStream(app.talkUrl, { message: 'hi' });
    const frames = await stream.rest();
    const beats = frames.filter((f) => f.comment !== undefined);
    expect(beats.length).toBeGreaterThanOrEqual(6);
    expect(beats.every((f) => f.comment === 'heartbeat')).toBe(true);
    expect(stream.raw()).toContain('\n\n: heartbeat\n\n');
    // Heartbeats only fill silence: none comes between frames written back to back.
    expect(names(frames)).toEqual(['message.start', 'message.delta', 'message.end', 'done']);
  });

  describe('handler failures', () => {
    const failing = async function* (): AsyncGenerator<string> {
      yield 'partial ';
      throw new Error('db password is hunter2 at /srv/app/secret.ts:42');
    };

    it('a handler that throws mid-stream → error {message} with a safe message, then done; the turn is stored as error', async () => {
      app.brain.behaviour = failing;
      const stream = await openTalkStream(app.talkUrl, { message: 'hi' });
      const frames = eventsOnly(await stream.rest());
      expect(names(frames)).toEqual(['message.start', 'message.delta', 'error', 'done']);
      expect(frames[2].data).toEqual({ event: 'error', message: 'The agent failed to produce a reply.', error: 'agent_error' });
      expect(stream.raw()).not.toMatch(/hunter2|secret\.ts|at .*:\d+/);
      const session = frames[0].data?.session_id as string;
      expect(frames[3].data).toEqual({ event: 'done', session_id: session });
      const turns = await storedTurns(app, session);
      expect(turns.map((t) => [t.role, t.status, t.content])).toEqual([
        ['user', 'complete', 'hi'],
        ['assistant', 'error', 'partial '],
      ]);
    });

    it('the same failure as JSON → 502 agent_error with the safe message', async () => {
      app.brain.behaviour = failing;
      const res = await postTalk(app.talkUrl, { message: 'hi' });
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: 'agent_error', message: 'The agent failed to produce a reply.' });
    });

    it('an HttpException thrown on purpose keeps its status and message', async () => {
      app.brain.behaviour = () => {
        throw new ForbiddenException('Not for you.');
      };
      const res = await postTalk(app.talkUrl, { message: 'hi' });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'forbidden', message: 'Not for you.' });
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'hi' })).rest());
      expect(frames[1].data).toEqual({ event: 'error', message: 'Not for you.', error: 'forbidden' });
    });

    it('a chunk that is not a string or TalkChunk is a handler error', async () => {
      app.brain.behaviour = () => of(42 as unknown as string);
      expect((await postTalk(app.talkUrl, { message: 'hi' })).status).toBe(502);
    });

    it(`a handler past talk.timeoutMs → 504 agent_timeout as JSON, error then done as SSE, and ctx.signal fires`, async () => {
      app.brain.behaviour = (ctx) => new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('too late')));
      const started = Date.now();
      const res = await postTalk(app.talkUrl, { message: 'hi' });
      expect(res.status).toBe(504);
      expect(await res.json()).toEqual({ error: 'agent_timeout', message: `The agent did not finish its reply within ${TIMEOUT_MS} ms.` });
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(app.brain.contexts.at(-1)?.signal.reason).toMatchObject({ name: 'TimeoutError' });
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'hi' })).rest());
      expect(names(frames)).toEqual(['message.start', 'error', 'done']);
      expect(frames[1].data).toMatchObject({ event: 'error', error: 'agent_timeout' });
    });
  });

  describe('client disconnects', () => {
    it('an SSE client that hangs up fires ctx.signal, iteration stops within a second, and the turn is stored as aborted', async () => {
      let produced = 0;
      let finalized = false;
      app.brain.behaviour = async function* () {
        try {
          for (;;) {
            produced++;
            yield `word${produced} `;
            await sleep(50);
          }
        } finally {
          finalized = true;
        }
      };
      const calls = app.brain.contexts.length;
      const stream = await openTalkStream(app.talkUrl, { message: 'keep talking' });
      const start = await stream.next();
      await stream.next();
      await stream.next();
      stream.abort();
      const ctx = await app.brain.lastContext(calls + 1);
      await eventually(async () => ctx.signal.aborted, Boolean, 1000);
      expect(ctx.signal.aborted).toBe(true);
      expect(ctx.signal.reason).toMatchObject({ name: 'AbortError' });
      await eventually(async () => finalized, Boolean, 1000);
      expect(finalized).toBe(true);
      const after = produced;
      await sleep(300);
      expect(produced).toBe(after);
      const session = start?.data?.session_id as string;
      const turns = await eventually(() => storedTurns(app, session), (t) => t.length === 2);
      expect(turns[1]).toMatchObject({ role: 'assistant', status: 'aborted' });
      expect(turns[1].content).toMatch(/^word1 word2 /);
    });

    it('an Observable handler is unsubscribed when the client goes away', async () => {
      let unsubscribed = false;
      app.brain.behaviour = () =>
        new Observable<string>((subscriber) => {
          const sub = interval(30).pipe(map((i) => `tick${i} `)).subscribe(subscriber);
          return () => {
            unsubscribed = true;
            sub.unsubscribe();
          };
        });
      const stream = await openTalkStream(app.talkUrl, { message: 'tick' });
      await stream.next();
      await stream.next();
      stream.abort();
      await eventually(async () => unsubscribed, Boolean, 1000);
      expect(unsubscribed).toBe(true);
    });

    it('a JSON client that hangs up also fires ctx.signal and stores the turn as aborted', async () => {
      app.brain.behaviour = (ctx) => new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('never sent')));
      const sessionId = `json-abort-${Date.now()}-xyz`;
      const calls = app.brain.contexts.length;
      const controller = new AbortController();
      const pending = fetch(app.talkUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'bye', session_id: sessionId }),
        signal: controller.signal,
      }).catch(() => undefined);
      const ctx = await app.brain.lastContext(calls + 1);
      controller.abort();
      await pending;
      await eventually(async () => ctx.signal.aborted, Boolean, 1000);
      expect(ctx.signal.aborted).toBe(true);
      const turns = await eventually(() => storedTurns(app, sessionId), (t) => t.length === 2);
      expect(turns.map((t) => t.status)).toEqual(['complete', 'aborted']);
    });
  });

  it('respects backpressure: a client that does not read pauses the handler instead of buffering its output', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const total = 400; // 25 MiB if nothing held the producer back
    let produced = 0;
    app.brain.behaviour = async function* () {
      while (produced < total) {
        produced++;
        yield chunk;
      }
    };
    const url = new URL(app.talkUrl);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' } }, resolve);
      req.on('error', reject);
      req.end(JSON.stringify({ message: 'flood' }));
    });
    await sleep(500); // not reading: the socket fills, writes wait for drain
    const whilePaused = produced;
    expect(whilePaused).toBeLessThan(total / 2);
    let bytes = 0;
    res.on('data', (data: Buffer) => (bytes += data.length));
    await new Promise((resolve) => res.on('end', resolve));
    expect(produced).toBe(total);
    expect(bytes).toBeGreaterThan(total * chunk.length);
  });

  it('gives the handler its TalkContext: message, messageId, headers, empty history and news, toMessages()', async () => {
    app.brain.behaviour = () => 'ok';
    const calls = app.brain.contexts.length;
    await postTalk(app.talkUrl, { message: 'What can you do?' }, { 'X-Trace': 'abc' });
    const ctx = await app.brain.lastContext(calls + 1);
    expect(ctx.message).toBe('What can you do?');
    expect(ctx.headers['x-trace']).toBe('abc');
    expect(ctx.history).toEqual([]);
    expect(Array.isArray(ctx.news)).toBe(true);
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.toMessages()).toEqual([
      { role: 'system', content: 'Be brief.' },
      ...ctx.news.map(() => expect.objectContaining({ role: 'system' })),
      { role: 'user', content: 'What can you do?' },
    ]);
  });

  it('the catalog lists the required events plus the optional ones the app declares', async () => {
    const catalog = await (await fetch(`${app.url}/.well-known/restap.json`)).json();
    const talk = catalog.capabilities.find((c: { id: string }) => c.id === 'talk');
    expect(talk.streaming.events).toEqual(['message.start', 'message.delta', 'message.end', 'error', 'done', 'status']);
  });
});
