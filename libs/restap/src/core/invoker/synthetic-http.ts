import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { CapabilityCallEvents } from './capability-events.types';

/** What a synthetic request is made of: the route's values as an HTTP request would carry them. */
export interface SyntheticRequestInit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: unknown;
  ip?: string;
  /** Where the call's progress and log messages go (capabilityProgress, capabilityLog); none: nowhere. */
  events?: CapabilityCallEvents;
}

/** Stands in for the connection: Nest watches `close` on it to tear down a handler's Observable or stream. */
class SyntheticSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string | undefined) {
    super();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

/**
 * The request a capability's route handler sees when it is invoked in-process: the Express
 * request fields route-param decorators, guards and pipes read (`body`, `params`, `query`,
 * `headers`, `ip`, `get()`), already parsed as the host's body and query parsers would leave them.
 */
export class SyntheticRequest extends EventEmitter {
  readonly method: string;
  readonly url: string;
  readonly originalUrl: string;
  readonly path: string;
  readonly baseUrl = '';
  readonly headers: IncomingHttpHeaders;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: unknown;
  readonly ip?: string;
  readonly ips: string[] = [];
  readonly protocol = 'http';
  readonly secure = false;
  readonly socket: SyntheticSocket;
  /** Aborted when the call is: its caller cancelled it (an MCP or A2A task cancel), went away, or it timed out. */
  readonly signal: AbortSignal;
  /** Where the call's progress and log messages go (see capabilityProgress). */
  readonly events?: CapabilityCallEvents;
  private readonly aborts = new AbortController();
  readonly complete = true;
  /** body-parser's "already parsed" mark, should a host middleware ever see this request. */
  readonly _body = true;
  res?: SyntheticResponse;

  constructor(init: SyntheticRequestInit) {
    super();
    this.method = init.method;
    this.url = this.originalUrl = init.url;
    this.path = init.url.split('?')[0];
    this.headers = init.headers;
    this.params = init.params;
    this.query = init.query;
    this.body = init.body;
    this.ip = init.ip;
    this.socket = new SyntheticSocket(init.ip);
    this.signal = this.aborts.signal;
    if (init.events) this.events = init.events;
  }

  get hostname(): string | undefined {
    return this.headers.host?.replace(/:\d+$/, '');
  }

  get connection(): SyntheticSocket {
    return this.socket;
  }

  /** Express's `req.get()`: a header by case-insensitive name (`referer` and `referrer` alike). */
  get(name: string): string | string[] | undefined {
    const key = name.toLowerCase();
    return key === 'referer' || key === 'referrer' ? (this.headers.referer ?? this.headers.referrer) : this.headers[key];
  }

  header(name: string): string | string[] | undefined {
    return this.get(name);
  }

  /** The caller went away (or the call timed out): handlers watching the connection stop. */
  abort(reason?: unknown): void {
    this.aborts.abort(reason ?? new Error('The call was aborted.'));
    this.socket.destroy();
    this.emit('close');
  }
}

/**
 * The response a route handler, Nest's response controller and exception filters write to when a
 * capability is invoked in-process: Express's response API, with the status, headers and body
 * kept instead of sent. `done` settles when the response ends.
 */
export class SyntheticResponse extends EventEmitter {
  statusCode = 200;
  statusMessage = '';
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  readonly locals: Record<string, unknown> = {};
  readonly done: Promise<void>;
  private readonly headers = new Map<string, number | string | string[]>();
  private readonly chunks: Buffer[] = [];
  /** The value given to `json()`, kept so the body need not be parsed back. */
  private jsonBody?: { value: unknown };
  private settle!: () => void;

  constructor(readonly req: SyntheticRequest) {
    super();
    this.done = new Promise((resolve) => (this.settle = resolve));
    req.res = this;
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  sendStatus(code: number): this {
    return this.status(code).send(String(code));
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    this.headers.set(name.toLowerCase(), Array.isArray(value) ? [...value] : (value as number | string));
    return this;
  }

  getHeader(name: string): number | string | string[] | undefined {
    return this.headers.get(name.toLowerCase());
  }

  getHeaders(): Record<string, number | string | string[]> {
    return Object.fromEntries(this.headers);
  }

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  /** Express's `res.set()` / `res.header()`: one header, or an object of them. */
  set(field: string | Record<string, string>, value?: string | string[]): this {
    if (typeof field === 'string') return this.setHeader(field, value ?? '');
    for (const [name, v] of Object.entries(field)) this.setHeader(name, v);
    return this;
  }

  header(field: string | Record<string, string>, value?: string | string[]): this {
    return this.set(field, value);
  }

  get(name: string): number | string | string[] | undefined {
    return this.getHeader(name);
  }

  type(contentType: string): this {
    return this.setHeader('content-type', contentType.includes('/') ? contentType : `application/${contentType}`);
  }

  writeHead(status: number, headers?: Record<string, string>): this {
    this.statusCode = status;
    if (headers) this.set(headers);
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  /** Express's `res.json()`: the body is what `JSON.stringify` makes of the value (toJSON, Dates…). */
  json(value: unknown): this {
    if (!this.hasHeader('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
    const text = JSON.stringify(value);
    this.jsonBody = { value: text === undefined ? undefined : JSON.parse(text) };
    return this.end(text ?? '');
  }

  send(body?: unknown): this {
    if (body === undefined || body === null) return this.end();
    if (Buffer.isBuffer(body) || typeof body === 'string') return this.end(body);
    if (typeof body === 'number' || typeof body === 'boolean') return this.end(String(body));
    return this.json(body);
  }

  redirect(statusOrUrl: number | string, url?: string): void {
    const [status, location] = typeof statusOrUrl === 'number' ? [statusOrUrl, url ?? ''] : [302, statusOrUrl];
    this.status(status).setHeader('location', location);
    this.end();
  }

  write(chunk: string | Buffer, encoding?: BufferEncoding | (() => void)): boolean {
    this.headersSent = true;
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8'));
    return true;
  }

  end(chunk?: string | Buffer | (() => void)): this {
    if (this.writableEnded) return this;
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk);
    this.headersSent = this.writableEnded = this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
    this.settle();
    return this;
  }

  /** The caller went away: stop waiting for the body. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
    this.settle();
  }

  /** The body as sent: the JSON value for a JSON response, else its text (undefined when empty). */
  body(): unknown {
    if (this.jsonBody) return this.jsonBody.value;
    const text = Buffer.concat(this.chunks).toString('utf8');
    if (!text) return undefined;
    const type = String(this.getHeader('content-type') ?? '');
    if (/json/i.test(type)) {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    }
    return text;
  }
}
