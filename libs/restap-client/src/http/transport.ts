import { RestapError } from '../errors/restap.error';
import type { FetchLike, RestapClientOptions } from '../interfaces/options.interface';
import { CONTENT_TYPE_JSON, DEFAULT_TIMEOUT_MS } from '../restap.constants';
import { combineSignals, toRestapError } from './abort';
import { parseRetryAfter } from './retry';

/** Query values; `undefined` entries are left out. */
export type QueryParams = Record<string, string | number | boolean | undefined>;

/** One HTTP exchange as the client builds it. */
export interface TransportRequest {
  method: string;
  /** Endpoint from the catalog (absolute path, relative path or full URL). */
  endpoint: string;
  query?: QueryParams;
  headers?: Record<string, string>;
  /** JSON-encoded when defined. */
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Sends requests relative to an agent's base URL with shared headers, deadline and error mapping. */
export class Transport {
  constructor(
    /** Base URL of the agent, always ending with `/`. */
    readonly baseUrl: string,
    private readonly fetchFn: FetchLike,
    private readonly headers: Record<string, string>,
    readonly timeoutMs: number,
  ) {}

  /** Resolves an endpoint like a browser would: `/talk` from the origin, `talk` under the base path. */
  url(endpoint: string, query?: QueryParams): string {
    const url = new URL(endpoint, this.baseUrl);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** Sends the request; resolves with any status, rejects only when no response arrived. */
  async send(request: TransportRequest): Promise<Response> {
    const url = this.url(request.endpoint, request.query);
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const headers: Record<string, string> = { ...this.headers, ...request.headers };
    if (request.body !== undefined) headers['Content-Type'] = CONTENT_TYPE_JSON;
    try {
      return await this.fetchFn(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: combineSignals(request.signal, timeoutMs),
      });
    } catch (error) {
      throw toRestapError(error, url, timeoutMs);
    }
  }

  /** Sends the request and returns its JSON body; a non-2xx status becomes a {@link RestapError}. */
  async json(request: TransportRequest): Promise<unknown> {
    const response = await this.send(request);
    if (!response.ok) throw await errorFromResponse(response);
    return readJson(response, request.timeoutMs ?? this.timeoutMs);
  }
}

/** A transport from the client's options; the fetch and deadline defaults are resolved here only. */
export function createTransport(baseUrl: string, opts: Pick<RestapClientOptions, 'fetch' | 'headers' | 'timeoutMs'>): Transport {
  return new Transport(baseUrl, resolveFetch(opts.fetch), opts.headers ?? {}, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}

function resolveFetch(fetchFn: FetchLike | undefined): FetchLike {
  if (fetchFn) return fetchFn;
  if (typeof globalThis.fetch !== 'function') throw new RestapError('network_error', 'No global fetch: pass opts.fetch');
  // Bound so browsers do not throw "Illegal invocation" when fetch is called as a method.
  return globalThis.fetch.bind(globalThis);
}

/** The media type of a response, lower-cased and without parameters. */
export function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

/** `application/json` or a `+json` structured suffix (e.g. `application/problem+json`). */
export function isJsonMediaType(type: string): boolean {
  return type === CONTENT_TYPE_JSON || type.endsWith('+json');
}

/** Reads a JSON body; a non-JSON body or media type is an `invalid_response`. */
export async function readJson(response: Response, timeoutMs?: number): Promise<unknown> {
  const text = await readText(response, timeoutMs);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const type = mediaTypeOf(response) || 'no Content-Type';
    throw new RestapError('invalid_response', `Expected JSON from ${response.url || 'the server'} but got ${type}: ${preview(text)}`, {
      status: response.status,
      cause: error,
    });
  }
}

/** Reads a body as text, mapping a timeout or abort during the read like one during fetch. */
export async function readText(response: Response, timeoutMs?: number): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw toRestapError(error, response.url, timeoutMs);
  }
}

/** Builds the error for a non-2xx response from the spec's `{"error", "message"}` shape when present. */
export async function errorFromResponse(response: Response): Promise<RestapError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // Not JSON (proxy page, plain text): keep the text as details.
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  // One code for one failure on every door: Nest's default body (`{statusCode, message, error: "Not
  // Found"}`) gives `not_found`, as the module's MCP and A2A doors and its invoker name it.
  const code = typeof record.error === 'string' && record.error ? snakeCode(record.error) : STATUS_CODES[response.status] ?? `http_${response.status}`;
  const listed = Array.isArray(record.message) ? record.message.map(String).join('; ') : undefined;
  const message =
    typeof record.message === 'string'
      ? record.message
      : listed ?? `${response.status} ${response.statusText || 'error'} from ${response.url || 'the server'}`;
  return new RestapError(code, message, {
    status: response.status,
    details: body,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  });
}

/** Codes of the statuses an HTTP error body may leave unnamed, as the module names them. */
const STATUS_CODES: Record<number, string> = {
  400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed', 406: 'not_acceptable',
  408: 'request_timeout', 409: 'conflict', 410: 'gone', 413: 'payload_too_large', 415: 'unsupported_media_type',
  422: 'unprocessable_entity', 429: 'too_many_requests', 500: 'internal_server_error', 502: 'bad_gateway',
  503: 'service_unavailable', 504: 'gateway_timeout',
};

/** `"Not Found"` → `not_found`; a code already in snake_case is kept. */
function snakeCode(text: string): string {
  if (/^[a-z0-9_]+$/.test(text)) return text;
  return text.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'error';
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat || '(empty body)';
}
