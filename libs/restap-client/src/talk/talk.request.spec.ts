import { RestapClient } from '../restap.client';
import { RestapError } from '../errors/restap.error';
import { catalogFixture, fakeFetch, frame, jsonResponse, sseResponse, type FakeAnswer } from '../testing/fake-fetch';
import type { TalkEvent } from '../interfaces/talk.interface';

function clientWith(answers: FakeAnswer[]) {
  const fetch = fakeFetch(answers);
  const client = new RestapClient(catalogFixture(), 'http://agent.test', { fetch });
  return { client, fetch };
}

async function events(stream: AsyncIterable<TalkEvent>): Promise<TalkEvent[]> {
  const out: TalkEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const SESSION = 'sess_0123456789abcdefghij';

describe('talkStream content negotiation (clients MUST inspect Content-Type)', () => {
  it('retries as JSON after a 406 and replays the JSON reply as start/delta/end/done', async () => {
    const { client, fetch } = clientWith([
      jsonResponse({ error: 'not_acceptable', message: 'no streaming' }, 406),
      jsonResponse({ reply: 'Hi!', session_id: SESSION, message_id: 'm1' }),
    ]);
    const stream = client.talkStream('Say hello');
    expect(await events(stream)).toEqual([
      { event: 'message.start', id: 'm1', session_id: SESSION },
      { event: 'message.delta', id: 'm1', text: 'Hi!' },
      { event: 'message.end', id: 'm1' },
      { event: 'done', session_id: SESSION },
    ]);
    expect(fetch.seen.map((r) => r.headers.accept)).toEqual(['text/event-stream, application/json', 'application/json']);
    expect(stream.transport).toBe('json');
    expect(client.sessionId).toBe(SESSION);
  });

  it('sends nothing until iterated', () => {
    const { client, fetch } = clientWith([]);
    client.talkStream('lazy');
    expect(fetch.seen).toHaveLength(0);
  });

  it('parses frames split across chunks, including a multi-byte character cut in two', async () => {
    const text = frame('message.delta', { id: 'm', text: 'héllo 👋' });
    const bytes = new TextEncoder().encode(text);
    const cut = bytes.indexOf(0xf0) + 2; // inside the 4-byte emoji
    const { client } = clientWith([
      sseResponse([': heartbeat\n\n', frame('message.start', { id: 'm' }).slice(0, 10), frame('message.start', { id: 'm' }).slice(10), bytes.slice(0, cut), bytes.slice(cut), frame('message.end', { id: 'm' }), frame('done')]),
    ]);
    expect(await client.talkStream('x').text()).toBe('héllo 👋');
  });

  it('an in-stream error event is yielded, and text() rejects with it', async () => {
    const answer = () => sseResponse([frame('message.start', { id: 'm' }), frame('error', { message: 'model overloaded', error: 'agent_error' }), frame('done')]);
    const { client } = clientWith([answer(), answer()]);
    expect((await events(client.talkStream('x'))).map((e) => e.event)).toEqual(['message.start', 'error', 'done']);
    await expect(client.talkStream('x').text()).rejects.toMatchObject({ code: 'agent_error', message: 'model overloaded' });
  });

  it('a stream that ends before done is stream_interrupted', async () => {
    const { client } = clientWith([sseResponse([frame('message.start', { id: 'm' }), frame('message.delta', { id: 'm', text: 'par' })])]);
    await expect(client.talkStream('x').text()).rejects.toMatchObject({ code: 'stream_interrupted' });
  });

  it('stops reading at done even if the server keeps the connection open', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(frame('message.start', { id: 'm' }) + frame('message.delta', { id: 'm', text: 'ok' }) + frame('message.end', { id: 'm' }) + frame('done')));
        // never closed
      },
    });
    const { client } = clientWith([new Response(body, { headers: { 'content-type': 'text/event-stream' } })]);
    expect(await client.talkStream('x').text()).toBe('ok');
  });

  it('an unexpected Content-Type is a typed error', async () => {
    const { client } = clientWith([new Response('<html>', { headers: { 'content-type': 'text/html' } })]);
    await expect(client.talkStream('x').text()).rejects.toMatchObject({ code: 'unexpected_content_type' });
  });

  it('talk() still works when a server streams although JSON was asked for', async () => {
    const { client } = clientWith([sseResponse([frame('message.start', { id: 'm', session_id: SESSION }), frame('message.delta', { id: 'm', text: 'streamed' }), frame('message.end', { id: 'm' }), frame('done', { session_id: SESSION })])]);
    expect(await client.talk('x')).toEqual({ reply: 'streamed', sessionId: SESSION, messageId: 'm' });
  });

  it('a JSON body without a string reply is invalid_response', async () => {
    const { client } = clientWith([jsonResponse({ answer: 'nope' })]);
    const error = await client.talk('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RestapError);
    expect(error).toMatchObject({ code: 'invalid_response' });
  });

  it('a stream can be consumed once', async () => {
    const { client } = clientWith([jsonResponse({ reply: 'a' })]);
    const stream = client.talkStream('x');
    await stream.text();
    await expect(stream.text()).rejects.toMatchObject({ code: 'stream_error' });
  });
});
