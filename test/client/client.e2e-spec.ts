import { collectText, RestapClient, RestapError, type TalkEvent } from 'restap-client';
import { startFixture, type RunningFixture } from './fixtures/restap-fixture.server';
import { deadUrl, startPlainServer } from './fixtures/plain.server';

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

describe('RestapClient against the compliant fixture', () => {
  let agent: RunningFixture;
  let client: RestapClient;

  beforeEach(async () => {
    agent = await startFixture();
    client = await RestapClient.discover(agent.url);
  });
  afterEach(() => agent.close());

  describe('discover', () => {
    it('holds the typed catalog and capabilities by id', () => {
      expect(client.catalog.agent.name).toBe('Fixture Agent');
      expect(client.catalog.restap_version).toBe('1.0');
      expect([...client.capabilities.keys()]).toEqual(['talk', 'news', 'news_receive', 'text.echo', 'text.repeat']);
      expect(client.capability('text.echo')?.method).toBe('POST');
      expect(client.streaming).toBe(true);
      expect(client.catalogUrl).toBe(`${agent.url}/.well-known/restap.json`);
    });

    it('accepts the catalog URL itself', async () => {
      const again = await RestapClient.discover(`${agent.url}/.well-known/restap.json`);
      expect(again.baseUrl).toBe(`${agent.url}/`);
    });
  });

  describe('talk (JSON)', () => {
    it('returns reply, session id and message id, asking for application/json', async () => {
      const result = await client.talk('Say hello');
      expect(result.reply).toBe('Hello! You said: Say hello (turn 1)');
      expect(result.sessionId).toMatch(/^sess_[A-Za-z0-9_-]{24}$/);
      expect(result.messageId).toMatch(/^msg_/);
      expect(agent.state.requests.at(-1)?.headers.accept).toBe('application/json');
    });

    it('continues the session the server returned, in the header and the body, never the URL', async () => {
      const first = await client.talk('Say hello');
      const second = await client.talk('And again');
      expect(second.reply).toContain('(turn 2)');
      expect(second.sessionId).toBe(first.sessionId);
      const last = agent.state.requests.at(-1);
      expect(last?.headers['restap-session-id']).toBe(first.sessionId);
      expect(last?.url).toBe('/talk');
      expect(agent.state.requests.every((r) => !r.url.includes('sess_'))).toBe(true);
    });

    it('{session: false} sends no session and keeps the current one', async () => {
      const first = await client.talk('Say hello');
      const oneOff = await client.talk('Stateless', { session: false });
      expect(oneOff.reply).toContain('(turn 1)');
      expect(oneOff.sessionId).not.toBe(first.sessionId);
      expect(client.sessionId).toBe(first.sessionId);
    });

    it('an explicit sessionId wins and becomes current', async () => {
      const first = await client.talk('Say hello');
      client.resetSession();
      expect((await client.talk('fresh')).reply).toContain('(turn 1)');
      const resumed = await client.talk('resume', { sessionId: first.sessionId });
      expect(resumed.reply).toContain('(turn 2)');
      expect(client.sessionId).toBe(first.sessionId);
    });

    it('surfaces the server error code: 400 invalid_session_id', async () => {
      const error = await rejection(client.talk('hi', { sessionId: 'too-short' }));
      expect(error).toMatchObject({ code: 'invalid_session_id', status: 400 });
    });
  });

  describe('talkStream (SSE)', () => {
    it('yields typed events in order, passing optional and unknown events through', async () => {
      const stream = client.talkStream('Say hello');
      const events: TalkEvent[] = [];
      for await (const event of stream) events.push(event);
      const names = events.map((e) => (e.event === 'unknown' ? `unknown:${e.name}` : e.event));
      expect(names.slice(0, 5)).toEqual(['message.start', 'status', 'tool.start', 'tool.end', 'unknown:x-fixture.custom']);
      expect(names.slice(-2)).toEqual(['message.end', 'done']);
      expect(stream.transport).toBe('sse');
      expect(stream.sessionId).toMatch(/^sess_/);
      expect(agent.state.requests.at(-1)?.headers.accept).toBe('text/event-stream, application/json');
    });

    it('assembles the reply with text() and collectText()', async () => {
      expect(await client.talkStream('Say hello').text()).toBe('Hello! You said: Say hello (turn 1)');
      expect(await collectText(client.talkStream('Again'))).toBe('Hello! You said: Again (turn 2)');
    });

    it('shares the session with talk()', async () => {
      const streamed = await client.talkStream('Say hello').result();
      const next = await client.talk('again');
      expect(next.sessionId).toBe(streamed.sessionId);
      expect(next.reply).toContain('(turn 2)');
    });

    it('falls back to synthetic events when the server answers JSON', async () => {
      const jsonOnly = await startFixture({ streaming: false });
      try {
        const plain = await RestapClient.discover(jsonOnly.url);
        const stream = plain.talkStream('Say hello');
        const names: string[] = [];
        for await (const event of stream) names.push(event.event);
        expect(names).toEqual(['message.start', 'message.delta', 'message.end', 'done']);
        expect(stream.transport).toBe('json');
        expect(stream.sessionId).toMatch(/^sess_/);
      } finally {
        await jsonOnly.close();
      }
    });

    it('times out with code timeout and aborts with code aborted', async () => {
      const slow = await startFixture({ deltaDelayMs: 300 });
      try {
        const slowClient = await RestapClient.discover(slow.url);
        expect((await rejection(slowClient.talkStream('Say hello', { timeoutMs: 100 }).text())).code).toBe('timeout');
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        expect((await rejection(slowClient.talkStream('Say hello', { signal: controller.signal }).text())).code).toBe('aborted');
      } finally {
        await slow.close();
      }
    });
  });

  describe('call', () => {
    it('validates and sends input, checks output', async () => {
      const out = await client.call<{ echoed_text: string }>('text.echo', { text: 'hi there' });
      expect(out.echoed_text).toBe('hi there');
    });

    it('rejects input that breaks input_schema before sending, listing every ajv error', async () => {
      const before = agent.state.requests.length;
      const error = await rejection(client.call('text.echo', { text: 5, extra: true }));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain('/text must be string');
      expect(error.message).toContain('must NOT have additional property "extra"');
      expect(error.details).toHaveLength(2);
      expect(agent.state.requests.length).toBe(before);
      expect((await rejection(client.call('text.echo', {}))).message).toContain("must have required property 'text'");
    });

    it('fills {path} params and query params', async () => {
      expect(await client.call('text.repeat', undefined, { params: { count: 3 }, query: { text: 'ab' } })).toEqual({ result: 'ababab' });
      expect((await rejection(client.call('text.repeat', undefined, { query: { text: 'x' } }))).code).toBe('invalid_input');
    });

    it('rejects an answer that breaks output_schema with invalid_output', async () => {
      const wrong = await startFixture({ wrongEchoOutput: true });
      try {
        const error = await rejection((await RestapClient.discover(wrong.url)).call('text.echo', { text: 'hi' }));
        expect(error.code).toBe('invalid_output');
        expect(error.message).toContain('/echoed_text must be string');
      } finally {
        await wrong.close();
      }
    });

    it('names unknown capabilities', async () => {
      expect((await rejection(client.call('nope', {}))).code).toBe('unknown_capability');
    });
  });
});

describe('RestapClient.discover failures', () => {
  it('network_error when nothing listens', async () => {
    expect((await rejection(RestapClient.discover(await deadUrl()))).code).toBe('network_error');
  });

  it('not_restap for a plain website', async () => {
    const site = await startPlainServer();
    try {
      expect(await rejection(RestapClient.discover(site.url))).toMatchObject({ code: 'not_restap', status: 404 });
    } finally {
      await site.close();
    }
  });

  it('invalid_catalog listing what is wrong', async () => {
    const site = await startPlainServer('bad-catalog');
    try {
      const error = await rejection(RestapClient.discover(site.url));
      expect(error.code).toBe('invalid_catalog');
      expect(error.details).toEqual(['restap_version must be a string', 'agent must be an object', 'capabilities must be an array']);
    } finally {
      await site.close();
    }
  });
});
