import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Client } from 'pg';
import { RestapClient, formatReport, runConformance, type TalkEvent } from 'restap-client';
import { hashSessionId } from '../../libs/restap/src/sessions/session-id';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';

// Issue 37: a dropped /talk SSE stream resumes from its last event on any replica. Two instances of
// the sample (talk.resume on) share one PostgreSQL: the one of TEST_DATABASE_URL, else one the test
// starts itself (two embedded databases would be two agents). Only the model is faked, and slow.
jest.setTimeout(120_000);

const WORDS = 40;
const REPLY = Array.from({ length: WORDS }, (_, i) => `w${i}`).join(' ');

/** One SSE event as a client sees it (WHATWG parsing, by the library the client package uses). */
interface Frame {
  id?: string;
  event?: string;
  data: string;
}

/** An SSE response read frame by frame; `drop()` cuts the socket like a network loss. */
interface SseReader {
  status: number;
  headers: IncomingMessage['headers'];
  /** The raw body so far (to check the `retry:` hint). */
  raw(): string;
  /** The next frame, or undefined at the end of the stream. */
  next(): Promise<Frame | undefined>;
  /** All remaining frames until the server ends the stream. */
  rest(): Promise<Frame[]>;
  drop(): void;
}

function openSse(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown }): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req: ClientRequest = httpRequest(url, {
      method: init.method,
      headers: { accept: 'text/event-stream', ...(body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const queue: Frame[] = [];
      let raw = '';
      let ended = false;
      let wake: (() => void) | undefined;
      const parser = createParser({
        onEvent: (e: EventSourceMessage) => {
          queue.push({ id: e.id, event: e.event, data: e.data });
          wake?.();
        },
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        parser.feed(chunk);
      });
      const finish = (): void => {
        ended = true;
        wake?.();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const next = async (): Promise<Frame | undefined> => {
        while (!queue.length && !ended) await new Promise<void>((r) => (wake = r));
        return queue.shift();
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        raw: () => raw,
        next,
        rest: async () => {
          const frames: Frame[] = [];
          for (let f = await next(); f; f = await next()) frames.push(f);
          return frames;
        },
        drop: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end(body);
  });
}

const deltas = (frames: Frame[]): string =>
  frames
    .filter((f) => f.event === 'message.delta')
    .map((f) => (JSON.parse(f.data) as { text: string }).text)
    .join('');

const startOf = (frames: Frame[]): { id: string; session_id: string } => JSON.parse(frames[0].data) as { id: string; session_id: string };

describe('issue 37: resumable /talk streams on two replicas', () => {
  let shared: ReplicaDatabase | undefined;
  let url: string;
  let llm: FakeLlm;
  let a: RunningApp;
  let b: RunningApp;
  let sql: Client;

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    url = shared.url;
    llm = await startFakeLlm({ reply: REPLY, chunkDelayMs: 30 });
    const config = { llm: { baseUrl: llm.baseUrl, model: 'test-model' }, resume: true };
    a = await startSample({ url }, config);
    b = await startSample({ url }, config);
    sql = new Client({ connectionString: url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await a?.close();
    await b?.close();
    await llm?.close();
    await shared?.close();
  });

  /** The assistant reply stored for a message id (what the session's next turn will see). */
  async function storedReply(messageId: string): Promise<{ content: string; status: string } | undefined> {
    const { rows } = await sql.query<{ content: string; status: string }>(`SELECT content, status FROM restap_turns WHERE message_id = $1 AND role = 'assistant' AND status <> 'open'`, [messageId]);
    return rows[0];
  }

  async function waitStored(messageId: string): Promise<{ content: string; status: string }> {
    for (let i = 0; i < 200; i++) {
      const row = await storedReply(messageId);
      if (row) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`turn ${messageId} was never stored`);
  }

  it('done when: read part of a stream on A, drop the socket, resume on B with Last-Event-ID → exactly the remaining frames through done, and the joined deltas equal the stored reply', async () => {
    const live = await openSse(`${a.url}/talk`, { method: 'POST', body: { message: 'a long answer please' } });
    expect(live.status).toBe(200);
    const seen: Frame[] = [];
    while (seen.filter((f) => f.event === 'message.delta').length < 5) seen.push((await live.next()) as Frame);
    live.drop();
    const { id: messageId, session_id: sessionId } = startOf(seen);
    const lastId = seen[seen.length - 1].id as string;
    // Item 1: every frame carries a monotonic turn-scoped id, and the stream opens with a retry hint.
    expect(seen.map((f) => Number(f.id))).toEqual(seen.map((_, k) => k + 1));
    expect(live.raw().startsWith('retry: ')).toBe(true);

    // Still running on A: B follows it live through PostgreSQL, not from a finished record.
    expect(await storedReply(messageId)).toBeUndefined();
    const resumed = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId, 'Last-Event-ID': lastId } });
    expect(resumed.status).toBe(200);
    expect(resumed.headers['content-type']).toMatch(/^text\/event-stream/);
    const rest = await resumed.rest();

    // Exactly the frames after Last-Event-ID: no frame twice, none missing, through message.end and done.
    expect(rest.map((f) => Number(f.id))).toEqual(rest.map((_, k) => Number(lastId) + 1 + k));
    expect(rest.slice(-2).map((f) => f.event)).toEqual(['message.end', 'done']);
    expect(rest.slice(0, -2).every((f) => f.event === 'message.delta')).toBe(true);
    expect(JSON.parse(rest[rest.length - 1].data)).toEqual({ event: 'done', session_id: sessionId });
    const joined = deltas(seen) + deltas(rest);
    expect(joined).toBe(REPLY);
    // Item 4: the turn went on without its client and was stored whole, as the reply the client assembled.
    expect(await waitStored(messageId)).toEqual({ content: joined, status: 'complete' });
  });

  it('resume after done replays the whole stream exactly as it was sent live, on the other replica (session_id back on message.start and done)', async () => {
    const live = await openSse(`${a.url}/talk`, { method: 'POST', body: { message: 'again' } });
    const sent = await live.rest();
    expect(sent.slice(-2).map((f) => f.event)).toEqual(['message.end', 'done']);
    const { id: messageId, session_id: sessionId } = startOf(sent);
    const replay = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId } });
    expect(replay.status).toBe(200);
    expect(await replay.rest()).toEqual(sent);
    // From the closing frame: only done is left.
    const last = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId, 'Last-Event-ID': sent[sent.length - 2].id as string } });
    expect(await last.rest()).toEqual(sent.slice(-1));
  });

  it("issue 41: a completed turn's final frames are committed in the statement that stores the turn (same transaction), and a resume from them is exact", async () => {
    const live = await openSse(`${a.url}/talk`, { method: 'POST', body: { message: 'one commit' } });
    const sent = await live.rest();
    const { id: messageId, session_id: sessionId } = startOf(sent);
    const { rows: finals } = await sql.query<{ xmin: string; last_id: number }>(`SELECT xmin::text, last_id FROM restap_talk_frames WHERE message_id = $1 AND state = 'final'`, [messageId]);
    const { rows: reply } = await sql.query<{ xmin: string }>(`SELECT xmin::text FROM restap_turns WHERE message_id = $1 AND role = 'assistant'`, [messageId]);
    expect(finals).toHaveLength(1);
    // The final run ends with message.end (the id before done's); done is implied by it.
    expect(Number(finals[0].last_id)).toBe(Number(sent[sent.length - 2].id));
    expect(finals[0].xmin).toBe(reply[0].xmin);
    const replay = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId, 'Last-Event-ID': '1' } });
    expect(await replay.rest()).toEqual(sent.slice(1));
  });

  describe('a resume must prove it owns the turn (session_id in Restap-Session-Id, never in the URL)', () => {
    let messageId: string;
    let sessionId: string;
    beforeAll(async () => {
      llm.configure({ chunkDelayMs: 0 });
      const live = await openSse(`${a.url}/talk`, { method: 'POST', body: { message: 'short' } });
      ({ id: messageId, session_id: sessionId } = startOf(await live.rest()));
      llm.configure({ chunkDelayMs: 30 });
    });

    async function resumeJson(path: string, headers: Record<string, string>): Promise<{ status: number; type: string | null; body: unknown }> {
      const res = await fetch(`${b.url}${path}`, { headers: { accept: 'text/event-stream', ...headers } });
      return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
    }

    it("another session's id gets the same JSON 404 turn_not_found as an unknown message id", async () => {
      const foreign = await resumeJson(`/talk/${messageId}`, { 'Restap-Session-Id': 'x'.repeat(32) });
      expect(foreign).toEqual({ status: 404, type: expect.stringMatching(/^application\/json/), body: { error: 'turn_not_found', message: expect.any(String) } });
      const unknown = await resumeJson('/talk/msg_doesnotexist00', { 'Restap-Session-Id': sessionId });
      expect(unknown.status).toBe(404);
      expect((unknown.body as { error: string }).error).toBe('turn_not_found');
      expect(unknown.body).toEqual(foreign.body);
    });

    it('no session_id header → 400 missing_session_id; a session_id in the query string is not taken', async () => {
      const missing = await resumeJson(`/talk/${messageId}?session_id=${sessionId}`, {});
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ error: 'missing_session_id', message: expect.stringContaining('Restap-Session-Id') });
      const malformed = await resumeJson(`/talk/${messageId}`, { 'Restap-Session-Id': 'short' });
      expect(malformed).toMatchObject({ status: 400, body: { error: 'invalid_session_id' } });
    });

    it.each([['abc'], ['-1'], ['1.5'], ['9999999999']])('Last-Event-ID %j → 400 invalid_last_event_id, as JSON', async (value) => {
      const bad = await resumeJson(`/talk/${messageId}`, { 'Restap-Session-Id': sessionId, 'Last-Event-ID': value });
      expect(bad).toEqual({ status: 400, type: expect.stringMatching(/^application\/json/), body: { error: 'invalid_last_event_id', message: expect.any(String) } });
    });

    it('a Last-Event-ID past the end of a finished turn → 400 invalid_last_event_id naming the last id', async () => {
      const bad = await resumeJson(`/talk/${messageId}`, { 'Restap-Session-Id': sessionId, 'Last-Event-ID': '500' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'invalid_last_event_id', message: expect.stringMatching(/last event id is \d+/) });
    });

    it('an Accept without text/event-stream → 406 not_acceptable', async () => {
      const res = await fetch(`${b.url}/talk/${messageId}`, { headers: { accept: 'application/json', 'Restap-Session-Id': sessionId } });
      expect(res.status).toBe(406);
      expect(await res.json()).toMatchObject({ error: 'not_acceptable' });
    });

    it('the frames are kept without the session_id: only its hash is stored', async () => {
      const { rows } = await sql.query<{ frames: string; key_hash: Buffer }>('SELECT frames, key_hash FROM restap_talk_frames WHERE message_id = $1', [messageId]);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.frames).not.toContain(sessionId);
        expect(row.key_hash.toString('utf8')).not.toContain(sessionId);
      }
    });
  });

  it('item 5: the client library resumes a dropped stream by itself (Last-Event-ID, on the other replica) and assembles the whole stored reply', async () => {
    const resumes: Array<{ url: string; lastEventId: string | null; session: string | null }> = [];
    let cut = false;
    // The network between the client and A drops after the fifth delta; a load balancer sends the resume to B.
    const flaky = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = String(input);
      const method = init?.method ?? 'GET';
      if (method === 'GET' && url.startsWith(`${a.url}/talk/`)) {
        const headers = new Headers(init?.headers);
        resumes.push({ url, lastEventId: headers.get('last-event-id'), session: headers.get('restap-session-id') });
        return fetch(url.replace(a.url, b.url), init);
      }
      const response = await fetch(input, init);
      if (method !== 'POST' || !url.endsWith('/talk') || cut || !response.body) return response;
      cut = true;
      const upstream = response.body.getReader();
      let seen = 0;
      const decoder = new TextDecoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await upstream.read();
          if (done) return controller.close();
          seen += decoder.decode(value, { stream: true }).split('event: message.delta').length - 1;
          controller.enqueue(value);
          if (seen >= 5) {
            await upstream.cancel();
            controller.error(new TypeError('terminated'));
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = await RestapClient.discover(a.url, { fetch: flaky as typeof fetch });
    const stream = client.talkStream('resume by yourself', { resume: { backoffMs: 50 } });
    const events: TalkEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(cut).toBe(true);
    expect(resumes).toHaveLength(1);
    expect(resumes[0].url).not.toContain(stream.sessionId as string);
    expect(resumes[0].session).toBe(stream.sessionId);
    expect(Number(resumes[0].lastEventId)).toBeGreaterThanOrEqual(6);
    expect(events.map((e) => e.event).filter((e) => e !== 'message.delta')).toEqual(['message.start', 'message.end', 'done']);
    const text = events.map((e) => (e.event === 'message.delta' ? e.text : '')).join('');
    expect(text).toBe(REPLY);
    expect(await waitStored(stream.messageId as string)).toEqual({ content: text, status: 'complete' });
  });

  it('item 5: with resume: false the client reports the dropped stream instead', async () => {
    let cut = false;
    const flaky = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if ((init?.method ?? 'GET') !== 'POST' || cut || !response.body) return response;
      cut = true;
      const upstream = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await upstream.read();
          if (done) return controller.close();
          controller.enqueue(value);
          await upstream.cancel();
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = await RestapClient.discover(a.url, { fetch: flaky as typeof fetch });
    await expect(client.talkStream('no resume', { resume: false }).text()).rejects.toMatchObject({ code: 'network_error' });
  });

  it('item 4: DELETE on the other replica stops a turn whose client left; a resume ends with error turn_stopped then done; the turn is stored as aborted', async () => {
    const live = await openSse(`${a.url}/talk`, { method: 'POST', body: { message: 'stop me later' } });
    const seen: Frame[] = [];
    while (seen.filter((f) => f.event === 'message.delta').length < 3) seen.push((await live.next()) as Frame);
    live.drop();
    const { id: messageId, session_id: sessionId } = startOf(seen);
    // Another session cannot stop it.
    const foreign = await fetch(`${b.url}/talk/${messageId}`, { method: 'DELETE', headers: { 'Restap-Session-Id': 'y'.repeat(32) } });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: 'turn_not_found' });
    const stop = await fetch(`${b.url}/talk/${messageId}`, { method: 'DELETE', headers: { 'Restap-Session-Id': sessionId } });
    expect(stop.status).toBe(202);
    expect(await stop.json()).toEqual({ status: 'stopping', message_id: messageId });
    const stored = await waitStored(messageId);
    expect(stored.status).toBe('aborted');
    expect(stored.content.length).toBeLessThan(REPLY.length);
    const resumed = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId, 'Last-Event-ID': seen[seen.length - 1].id as string } });
    const rest = await resumed.rest();
    expect(rest.slice(-2).map((f) => f.event)).toEqual(['error', 'done']);
    expect(JSON.parse(rest[rest.length - 2].data)).toMatchObject({ error: 'turn_stopped' });
    expect(deltas(seen) + deltas(rest)).toBe(stored.content);
    // Once over, a stop says so.
    const again = await fetch(`${a.url}/talk/${messageId}`, { method: 'DELETE', headers: { 'Restap-Session-Id': sessionId } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ status: 'ended', message_id: messageId });
  });

  it('item 3: a turn whose replica died (frames kept, never stored, past its deadline) ends with error agent_interrupted then done instead of hanging', async () => {
    const session = 'dead-replica-session-0123456789';
    const messageId = 'msg_deadreplica0001';
    const start = JSON.stringify({ event: 'message.start', id: messageId });
    const delta = JSON.stringify({ event: 'message.delta', id: messageId, text: 'half an ans' });
    // What a replica killed mid-turn leaves behind: its first run of frames, written 3 minutes ago (talk.timeoutMs is 2).
    await sql.query(
      `INSERT INTO restap_talk_frames (message_id, first_id, last_id, key_hash, frames, state, created_at) VALUES ($1, 1, 2, $2, $3, 'open', now() - interval '3 minutes')`,
      [messageId, hashSessionId(session), JSON.stringify([['message.start', start], ['message.delta', delta]])],
    );
    const startedAt = Date.now();
    const resumed = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': session, 'Last-Event-ID': '1' } });
    const frames = await resumed.rest();
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(frames.map((f) => [f.id, f.event])).toEqual([['2', 'message.delta'], ['3', 'error'], ['4', 'done']]);
    expect(JSON.parse(frames[1].data)).toEqual({ event: 'error', error: 'agent_interrupted', message: expect.any(String) });
    expect(JSON.parse(frames[2].data)).toEqual({ event: 'done', session_id: session });
  });

  it('plain RESTAP clients never notice: restap check passes every MUST and SHOULD rule against a replica with talk.resume', async () => {
    const report = await runConformance(a.url, { timeoutMs: 30_000 });
    const failed = report.results.filter((r) => r.status === 'fail' && (r.level === 'MUST' || r.level === 'SHOULD'));
    if (failed.length) throw new Error(formatReport(report));
    expect(report.results.find((r) => r.id === 'sse.event-order')?.status).toBe('pass');
  });

  it('the catalog declares the extension on the talk capability', async () => {
    const catalog = (await (await fetch(`${a.url}/.well-known/restap.json`)).json()) as { capabilities: Array<Record<string, unknown>> };
    const talk = catalog.capabilities.find((c) => c.id === 'talk');
    expect(talk?.['x-restap-resume']).toEqual({ method: 'GET', endpoint: '/talk/{message_id}', on_disconnect: 'continues', grace_seconds: 300 });
  });
});
