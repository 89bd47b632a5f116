import { RestapClient, RestapError, type FetchLike, type NewsItem, type TalkEvent } from 'restap-client';
import { useSampleAgent } from '../support/sample-app';
import { eventually, storedTurns } from '../fixtures/talk-app';

jest.setTimeout(120_000);

/** The error a promise rejects with, typed. */
async function rejection(promise: Promise<unknown>): Promise<RestapError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RestapError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** A fetch that records every request URL (and may rewrite responses) before the real one. */
function recordingFetch(rewrite?: (url: string, body: unknown) => unknown): { fetch: FetchLike; urls: string[] } {
  const urls: string[] = [];
  const fetch: FetchLike = async (input, init) => {
    const url = String(input);
    urls.push(url);
    const response = await globalThis.fetch(input, init);
    if (!rewrite || !response.headers.get('content-type')?.startsWith('application/json')) return response;
    const body = rewrite(url, await response.json());
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(body), { status: response.status, headers });
  };
  return { fetch, urls };
}

describe('RestapClient against the sample agent (real HTTP, PostgreSQL)', () => {
  const agent = useSampleAgent({ newsScope: 'global' });
  let client: RestapClient;

  beforeEach(async () => {
    client = await RestapClient.discover(agent.url);
  });

  it('discovers the sample: agent, talk with SSE and sessions, global news, text capabilities, packages', () => {
    expect(client.catalog.agent.name).toBe('Text Analysis Agent');
    expect([...client.capabilities.keys()]).toEqual(expect.arrayContaining(['talk', 'news', 'news_receive', 'text.echo', 'text.reverse']));
    expect(client.streaming).toBe(true);
    expect(client.capability('talk')?.sessions).toEqual({ supported: true });
    expect(client.capability('news')?.sessions).toEqual({ supported: true, required: false });
    expect(client.catalog.packages?.map((p) => p.type)).toEqual(['claude-plugin']); // the client is advertised only once packed (packages.e2e-spec)
  });

  describe('talk', () => {
    it('a JSON turn returns the offline reply and a minted session_id', async () => {
      const { reply, sessionId, messageId } = await client.talk('What can you do?');
      expect(reply).toMatch(/running offline/);
      expect(reply).toContain('Echo text back (POST /text/echo)');
      expect(sessionId).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
      expect(messageId).toMatch(/^msg_/);
      expect(client.sessionId).toBe(sessionId);
    });

    it('a streamed turn arrives over SSE word by word, in order, and ends with done', async () => {
      const { reply } = await client.talk('What can you do?', { session: false });
      const stream = client.talkStream('What can you do?', { session: false });
      const events: TalkEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(stream.transport).toBe('sse');
      const deltas = events.flatMap((e) => (e.event === 'message.delta' ? [e.text] : []));
      expect(deltas.length).toBeGreaterThan(30);
      for (const word of deltas) expect(word).toMatch(/^\S+\s*$/);
      expect(deltas.join('')).toBe(reply);
      expect(events[0].event).toBe('message.start');
      expect(events.at(-2)?.event).toBe('message.end');
      expect(events.at(-1)?.event).toBe('done');
      expect(stream.messageId).toMatch(/^msg_/);
    });

    it('continues the session: JSON and streamed turns land in one stored thread', async () => {
      const first = await client.talk('First question');
      const second = await client.talk('Second question');
      const third = await client.talkStream('Third question, streamed').result();
      expect(second.sessionId).toBe(first.sessionId);
      expect(third.sessionId).toBe(first.sessionId);
      const turns = await eventually(() => storedTurns(agent, first.sessionId as string), (t) => t.length === 6);
      expect(turns.map((t) => [t.role, t.role === 'user' ? t.content : '…'])).toEqual([
        ['user', 'First question'], ['assistant', '…'],
        ['user', 'Second question'], ['assistant', '…'],
        ['user', 'Third question, streamed'], ['assistant', '…'],
      ]);
      client.resetSession();
      expect((await client.talk('Fresh start')).sessionId).not.toBe(first.sessionId);
    });
  });

  describe('news', () => {
    it('post with an idempotency key stores the item once: the replay returns the same news_id', async () => {
      const key = `client-sample-${Date.now()}`;
      const item = { type: 'reply', from: 'agent-b', in_reply_to: 'query_123', message: `blue ${key}` };
      const first = await client.news.post(item, { idempotencyKey: key });
      const replay = await client.news.post(item, { idempotencyKey: key });
      expect(first).toMatchObject({ status: 'received', news_id: expect.any(String) });
      expect(replay.news_id).toBe(first.news_id);
      const page = await client.news.list({ limit: 1000 });
      expect(page.items.filter((i) => i.message === item.message)).toEqual([
        expect.objectContaining({ news_id: first.news_id, type: 'reply', from: 'agent-b', in_reply_to: 'query_123' }),
      ]);
    });

    it('list pages with since (exclusive) and limit, has_more while more wait', async () => {
      const start = (await client.news.list()).timestamp;
      for (const n of [1, 2, 3]) await client.news.post({ type: 'note', message: `page ${n}` });
      const first = await client.news.list({ since: start, limit: 2 });
      expect(first.items.map((i) => i.message)).toEqual(['page 1', 'page 2']);
      expect(first.has_more).toBe(true);
      const rest = await client.news.list({ since: first.items[1].timestamp, limit: 2 });
      expect(rest.items.map((i) => i.message)).toEqual(['page 3']);
      expect(rest.has_more).toBe(false);
    });

    it('follow yields items as they are posted, oldest first, and ends when the signal aborts', async () => {
      const since = (await client.news.list()).timestamp;
      const controller = new AbortController();
      const seen: NewsItem[] = [];
      const following = (async () => {
        for await (const item of client.news.follow({ since, minIntervalMs: 20, maxIntervalMs: 100, signal: controller.signal })) {
          seen.push(item);
          if (seen.length === 2) controller.abort();
        }
      })();
      await client.news.post({ type: 'status', message: 'followed 1' });
      await client.news.post({ type: 'status', message: 'followed 2' });
      await following;
      expect(seen.map((i) => i.message)).toEqual(['followed 1', 'followed 2']);
    });
  });

  describe('capabilities', () => {
    it('text.echo: a valid call returns an answer that passes the output_schema', async () => {
      const out = await client.call<{ job_id: string; echoed_text: string; original_text: string }>('text.echo', { text: 'Hello World' });
      expect(out).toMatchObject({ job_id: expect.stringMatching(/^job_/), echoed_text: 'Hello World', original_text: 'Hello World' });
    });

    it('text.reverse: reversed by code point', async () => {
      expect(await client.call('text.reverse', { text: 'abc 😀' })).toMatchObject({ reversed_text: '😀 cba' });
    });

    it('input that fails the input_schema is invalid_input on the client: nothing is sent', async () => {
      const recording = recordingFetch();
      const checked = await RestapClient.discover(agent.url, { fetch: recording.fetch });
      const missing = await rejection(checked.call('text.reverse', { txt: 'hi' }));
      expect(missing.code).toBe('invalid_input');
      expect(missing.message).toContain("must have required property 'text'");
      const empty = await rejection(checked.call('text.echo', { text: '' }));
      expect(empty.code).toBe('invalid_input');
      expect(empty.message).toMatch(/fewer than 1 character/);
      expect(recording.urls.filter((u) => u.includes('/text/'))).toEqual([]);
    });

    it('an answer missing a field the sample\'s output_schema requires is invalid_output', async () => {
      const tampered = recordingFetch((url, body) => {
        if (!url.endsWith('/text/echo')) return body;
        const { echoed_text: _dropped, ...rest } = body as Record<string, unknown>;
        return rest;
      });
      const checked = await RestapClient.discover(agent.url, { fetch: tampered.fetch });
      const error = await rejection(checked.call('text.echo', { text: 'hi' }));
      expect(error.code).toBe('invalid_output');
      expect(error.message).toContain("must have required property 'echoed_text'");
    });
  });
});

describe('RestapClient against the sample with news.scope "session"', () => {
  const agent = useSampleAgent({ newsScope: 'session' });

  it('news calls carry the talk session: each session reads only its own items', async () => {
    const alice = await RestapClient.discover(agent.url);
    const bob = await RestapClient.discover(agent.url);
    expect(alice.capability('news')?.sessions).toEqual({ supported: true, required: true });
    expect((await rejection(alice.news.list())).code).toBe('missing_session_id');
    await alice.talk('hello');
    await bob.talk('hello');
    const posted = await alice.news.post({ type: 'note', message: 'for alice only' });
    expect((await alice.news.list()).items.map((i) => i.news_id)).toContain(posted.news_id);
    expect((await bob.news.list()).items.map((i) => i.news_id)).not.toContain(posted.news_id);
  });
});
