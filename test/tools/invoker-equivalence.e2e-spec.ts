import { STATUS_CODES } from 'node:http';
import { CapabilityInvoker, type InvocationResult, type RestapCaller } from 'nestjs-restap';
import { useTestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { startTalkFixture, type TalkFixture } from '../fixtures/talk-app';
import { configureToolsFixture, FIXTURE_API_KEY, FixtureKeyGuard, OrdersController, ScopedController } from '../fixtures/tools-app';

jest.setTimeout(60_000);

/** One capability call, made the same way twice: over HTTP and through the invoker. */
interface Case {
  name: string;
  capability: string;
  args: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** What the route answered over real HTTP, read the way the invoker reports it. */
async function overHttp(base: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The sample's results carry a fresh job id and time on each call: compare their shape there. */
const stable = (body: unknown): unknown =>
  JSON.parse(JSON.stringify(body), (key, value) => (key === 'job_id' ? 'job_*' : key === 'timestamp' ? 'iso-time' : value));

/** The error an HTTP client sees, in the invoker's terms: `{error, message}` as sent, a list of messages joined. */
function asFailure(status: number, body: unknown): InvocationResult {
  const b = body as { error?: string; message?: string | string[] };
  const name = b.error ?? STATUS_CODES[status] ?? '';
  const code = /^[a-z_]+$/.test(name) ? name : name.toLowerCase().replace(/\s+/g, '_');
  return { ok: false, status, error: code, message: Array.isArray(b.message) ? b.message.join('; ') : (b.message as string) };
}

async function expectSameAnswer(app: RunningApp, c: Case, request: { method: string; path: string; body?: unknown }): Promise<InvocationResult> {
  const headers = c.headers ?? {};
  const http = await overHttp(app.url, request.method, request.path, request.body, headers);
  const caller: RestapCaller = { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])), ip: '127.0.0.1' };
  const invoked = await app.app.get(CapabilityInvoker).invoke(c.capability, c.args, caller);
  if (http.status < 400) {
    expect(invoked).toEqual({ ok: true, status: http.status, body: expect.anything() });
    expect(stable((invoked as { body: unknown }).body)).toEqual(stable(http.body));
  } else {
    expect(invoked).toEqual(asFailure(http.status, http.body));
  }
  return invoked;
}

describe('CapabilityInvoker: a capability answers in-process exactly as over HTTP', () => {
  const db = useTestDatabase({ onDisk: true });

  describe('every sample capability, behind the sample\'s API-key guard and RESTAP error filter', () => {
    let sample: RunningApp;
    beforeAll(async () => {
      sample = await startSample(db.target, { apiKey: 'sample-key' });
    });
    afterAll(() => sample?.close());

    const key = { Authorization: 'Bearer sample-key' };
    it.each([
      { name: 'text.echo with the key', capability: 'text.echo', args: { text: 'hello world' }, headers: key },
      { name: 'text.reverse with the key', capability: 'text.reverse', args: { text: 'hello world' }, headers: key },
      { name: 'text.reverse keeps emoji whole', capability: 'text.reverse', args: { text: 'ab😀' }, headers: key },
      { name: 'text.reverse without the key (401 unauthorized)', capability: 'text.reverse', args: { text: 'x' } },
      { name: 'text.echo with a wrong key', capability: 'text.echo', args: { text: 'x' }, headers: { 'X-API-Key': 'nope' } },
      { name: 'text.echo with an empty text (ValidationPipe)', capability: 'text.echo', args: { text: '' }, headers: key },
      { name: 'text.reverse with a number for text', capability: 'text.reverse', args: { text: 42 }, headers: key },
    ])('$name', async (c: Case) => {
      const path = c.capability === 'text.echo' ? '/text/echo' : '/text/reverse';
      await expectSameAnswer(sample, c, { method: 'POST', path, body: c.args });
    });

    it('text.reverse of "hello world" is "dlrow olleh"', async () => {
      const result = await sample.app.get(CapabilityInvoker).invoke('text.reverse', { text: 'hello world' }, { headers: { 'x-api-key': 'sample-key' } });
      expect(result).toMatchObject({ ok: true, status: 200, body: { reversed_text: 'dlrow olleh', original_text: 'hello world' } });
    });
  });

  describe('a host app: path and query parameters, param pipes, guards, interceptors, filters, @HttpCode', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startTalkFixture(db.target, { controllers: [OrdersController, ScopedController], providers: [FixtureKeyGuard], configure: configureToolsFixture });
    });
    afterAll(() => app?.close());

    const key = { 'X-API-Key': FIXTURE_API_KEY };
    it.each([
      ['path parameter through ParseIntPipe, query parameter', { capability: 'orders.get', args: { id: 5, verbose: true }, headers: key }, 'GET', '/orders/5?verbose=true'],
      ['path parameter refused by ParseIntPipe (400)', { capability: 'orders.get', args: { id: 'five' }, headers: key }, 'GET', '/orders/five'],
      ['the handler\'s own 404', { capability: 'orders.get', args: { id: 101 }, headers: key }, 'GET', '/orders/101'],
      ['a method guard refusing a caller without the key (401)', { capability: 'orders.get', args: { id: 5 } }, 'GET', '/orders/5'],
      ['a body through the global ValidationPipe, POST default 201', { capability: 'orders.create', args: { item: 'tea', quantity: 3 } }, 'POST', '/orders'],
      ['ValidationPipe messages (400, Nest\'s default body)', { capability: 'orders.create', args: { item: '', quantity: 99 } }, 'POST', '/orders'],
      ['an interceptor reshaping the result, @HttpCode(202)', { capability: 'orders.wrapped', args: { item: 'tea', quantity: 1 } }, 'POST', '/orders/wrapped'],
      ['a method filter writing its own status and body (418)', { capability: 'orders.teapot', args: { item: 'tea', quantity: 1 } }, 'POST', '/orders/teapot'],
      ['a guard answering false (403)', { capability: 'orders.closed', args: { item: 'tea', quantity: 1 } }, 'POST', '/orders/closed'],
      ['a request-scoped controller, built for the call with the caller\'s request', { capability: 'scoped.whoami', args: { item: 'tea', quantity: 1 }, headers: key }, 'POST', '/scoped/whoami'],
      ['a request-scoped controller refusing invalid input', { capability: 'scoped.whoami', args: { item: 'tea' } }, 'POST', '/scoped/whoami'],
      ['a plain Error: 500 without its message', { capability: 'orders.crash', args: { item: 'tea', quantity: 1 } }, 'POST', '/orders/crash'],
    ] as Array<[string, Omit<Case, 'name'>, string, string]>)('%s', async (name, c, method, path) => {
      const body = method === 'GET' ? undefined : c.args;
      const result = await expectSameAnswer(app, { name, ...c }, { method, path, body });
      if (!result.ok) expect(result.message).not.toMatch(/hunter2|at .*\.ts:\d+/);
    });

    it('validation messages reach the caller, never a stack', async () => {
      const result = await app.app.get(CapabilityInvoker).invoke('orders.create', { item: '', quantity: 99 }, { headers: {} });
      expect(result).toEqual({
        ok: false,
        status: 400,
        error: 'bad_request',
        message: 'item should not be empty; quantity must not be greater than 10',
      });
    });

    it('an unknown capability id is 404 unknown_capability', async () => {
      expect(await app.app.get(CapabilityInvoker).invoke('orders.nope', {}, { headers: {} })).toEqual({
        ok: false,
        status: 404,
        error: 'unknown_capability',
        message: "No capability has the id 'orders.nope'.",
      });
    });

    it('an aborted signal ends the wait with 499 aborted', async () => {
      const controller = new AbortController();
      const pending = app.app.get(CapabilityInvoker).invoke('orders.slow', { ms: 1500 }, { headers: {} }, controller.signal);
      setTimeout(() => controller.abort(new DOMException('The client disconnected.', 'AbortError')), 50);
      const started = Date.now();
      expect(await pending).toEqual({ ok: false, status: 499, error: 'aborted', message: 'The client disconnected.' });
      expect(Date.now() - started).toBeLessThan(1000);
    });
  });
});
