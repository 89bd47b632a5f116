import compression from 'compression';
import { ArgumentsHost, CallHandler, Catch, ExceptionFilter, ExecutionContext, Injectable, NestInterceptor, ValidationPipe } from '@nestjs/common';
import type { Response } from 'express';
import { map, timeout, type Observable } from 'rxjs';
import { useTestDatabase } from '../support/test-database';
import { startTalkFixture, TalkFixture } from '../fixtures/talk-app';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';

type Expect = 'json' | 'sse' | 406;

/** [Accept, with streaming on, with streaming off]; undefined sends no Accept header at all. */
const MATRIX: Array<[string | undefined, Expect, Expect]> = [
  [undefined, 'json', 'json'],
  ['*/*', 'json', 'json'],
  ['application/json', 'json', 'json'],
  ['application/*', 'json', 'json'],
  ['text/event-stream', 'sse', 406],
  ['text/event-stream, application/json', 'sse', 'json'],
  ['application/json, text/event-stream', 'json', 'json'],
  ['text/event-stream;q=0.5, application/json', 'json', 'json'],
  ['application/json;q=0.5, text/event-stream', 'sse', 'json'],
  ['text/event-stream, */*;q=0.1', 'sse', 'json'],
  ['text/event-stream;q=0.9, */*', 'json', 'json'],
  ['text/event-stream;q=0, */*', 'json', 'json'],
  ['text/event-stream;q=0', 406, 406],
  ['application/json;q=0, text/event-stream', 'sse', 406],
  ['application/json;q=0, */*', 406, 406],
  ['text/*', 406, 406],
  ['text/html', 406, 406],
  ['image/png, text/plain;q=0.5', 406, 406],
];

async function observe(url: string, accept: string | undefined): Promise<Expect> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (accept !== undefined) headers.Accept = accept;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ message: 'hello' }) });
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (res.status === 406) {
    expect(type).toMatch(/^application\/json/);
    expect(JSON.parse(text)).toEqual({ error: 'not_acceptable', message: expect.any(String) });
    return 406;
  }
  expect(res.status).toBe(200);
  if (type === 'text/event-stream') {
    expect(text).toMatch(/^event: message\.start\n/);
    return 'sse';
  }
  expect(type).toMatch(/^application\/json/);
  expect(JSON.parse(text)).toMatchObject({ reply: 'echo: hello' });
  return 'json';
}

/** A host app that would break a naive implementation: response-wrapping interceptor, strict pipe, compression. */
@Injectable()
class WrapEverythingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ wrapped: true, data })));
  }
}

// Jest ignores the e2e project's testTimeout; PGlite alone can take 8 s to start.
jest.setTimeout(60_000);

/** A host-wide request timeout far shorter than the replies streamed below. */
@Injectable()
class ShortTimeoutInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(timeout({ first: 200 }));
  }
}

/** A host-wide error page in the host's own shape. */
@Catch()
class HostErrorFilter implements ExceptionFilter {
  catch(_error: unknown, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<Response>().status(500).type('text/html').send('<h1>host error page</h1>');
  }
}

describe('POST /talk content negotiation (spec, "Content negotiation")', () => {
  const db = useTestDatabase({ onDisk: true });

  describe('with streaming on (the default)', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startTalkFixture(db.target);
    });
    afterAll(() => app?.close());

    it.each(MATRIX)('Accept %j → %s', async (accept, expected) => {
      expect(await observe(app.talkUrl, accept)).toBe(expected);
    });

    it('an empty Accept header means no preference: JSON', async () => {
      expect(await observe(app.talkUrl, '')).toBe('json');
    });

    it('the catalog advertises application/json and text/event-stream with the five required events', async () => {
      const catalog = await (await fetch(`${app.url}/.well-known/restap.json`)).json();
      const talk = catalog.capabilities.find((c: { id: string }) => c.id === 'talk');
      expect(talk.output_formats).toEqual(['application/json', 'text/event-stream']);
      expect(talk.streaming).toEqual({ supported: true, transport: 'sse', events: ['message.start', 'message.delta', 'message.end', 'error', 'done'] });
    });
  });

  describe('with streaming off: JSON if acceptable, else 406', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startTalkFixture(db.target, { talk: { streaming: false } });
    });
    afterAll(() => app?.close());

    it.each(MATRIX)('Accept %j → (streaming on: %s) streaming off: %s', async (accept, _on, expected) => {
      expect(await observe(app.talkUrl, accept)).toBe(expected);
    });

    it('the catalog says streaming is not supported and lists only application/json', async () => {
      const catalog = await (await fetch(`${app.url}/.well-known/restap.json`)).json();
      const talk = catalog.capabilities.find((c: { id: string }) => c.id === 'talk');
      expect(talk.output_formats).toEqual(['application/json']);
      expect(talk.streaming).toEqual({ supported: false });
    });
  });

  describe("does not depend on the host's global interceptors (wrapping, 200 ms timeout), pipes, filters or compression", () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startTalkFixture(db.target, {
        globalPrefix: 'api',
        talkPath: '/chat',
        configure: (host) => {
          host.use(compression({ threshold: 0 }));
          host.useGlobalInterceptors(new WrapEverythingInterceptor(), new ShortTimeoutInterceptor());
          host.useGlobalFilters(new HostErrorFilter());
          host.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }));
        },
      });
    });
    afterAll(() => app?.close());

    it('serves the configured talk path under the global prefix, and advertises it', async () => {
      expect(app.talkUrl).toBe(`${app.url}/api/chat`);
      const catalog = await (await fetch(`${app.url}/.well-known/restap.json`)).json();
      expect(catalog.capabilities.find((c: { id: string }) => c.id === 'talk').endpoint).toBe('/api/chat');
      expect((await postTalk(`${app.url}/talk`, { message: 'hello' })).status).toBe(404);
    });

    it('JSON replies keep the RESTAP shape (no interceptor wrapping), unknown body fields are ignored', async () => {
      const res = await postTalk(app.talkUrl, { message: 'hello', extra: 1 }, { 'Accept-Encoding': 'identity' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ reply: 'echo: hello', session_id: expect.any(String), message_id: expect.any(String) });
    });

    it("request errors keep the RESTAP JSON shape despite the host's global exception filter", async () => {
      const res = await postTalk(app.talkUrl, { message: '' }, { Accept: 'text/event-stream' });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_request', message: expect.stringContaining('"message"') });
      expect((await postTalk(app.talkUrl, { message: 'hi' }, { Accept: 'text/html' })).status).toBe(406);
    });

    it('SSE frames arrive one by one through compression middleware (never buffered, never compressed)', async () => {
      app.brain.behaviour = async function* () {
        yield 'first ';
        await new Promise((r) => setTimeout(r, 600));
        yield 'second';
      };
      const stream = await openTalkStream(app.talkUrl, { message: 'hello' }, { 'Accept-Encoding': 'gzip' });
      expect(stream.response.headers.get('content-encoding')).toBeNull();
      expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
      const start = await stream.next();
      const first = await stream.next();
      expect(start?.event).toBe('message.start');
      expect(first?.data).toMatchObject({ event: 'message.delta', text: 'first ' });
      const rest = eventsOnly(await stream.rest());
      expect(rest[0].data).toMatchObject({ text: 'second' });
      // The first delta was readable long before the second was produced.
      expect(rest[0].at - (first?.at ?? 0)).toBeGreaterThanOrEqual(400);
      expect(rest.map((f) => f.event)).toEqual(['message.delta', 'message.end', 'done']);
    });
  });
});
