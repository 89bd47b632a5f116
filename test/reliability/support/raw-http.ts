import { request } from 'node:http';

/** One raw HTTP exchange: exactly the bytes and headers given, nothing added but Host. */
export interface RawRequest {
  method: string;
  /** Path with query string, sent as is (duplicates, malformed escapes…). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Give up reading after this long, ms (SSE streams are cut, not failed). @default 10000 */
  timeoutMs?: number;
}

/** What came back. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Milliseconds until the whole answer (or the timeout). */
  ms: number;
}

/** Sends one request over a fresh connection to `base` (http://127.0.0.1:port). */
export function rawRequest(base: string, req: RawRequest): Promise<RawAnswer> {
  const url = new URL(base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (req.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding')) {
      headers['Content-Length'] = String(Buffer.byteLength(req.body));
    }
    const r = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => res.destroy(), req.timeoutMs ?? 10_000);
      const finish = (): void => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', finish);
      res.on('close', finish);
    });
    r.setTimeout(req.timeoutMs ?? 10_000, () => r.destroy(new Error(`${req.method} ${req.path}: no answer in ${req.timeoutMs ?? 10_000} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * Asserts the module's error contract on one answer: never 5xx for bad input, never HTML, and an
 * error (4xx) is exactly `{"error": snake_case, "message": text}` JSON without a stack trace.
 * Returns a description of what is wrong, or undefined when all holds.
 */
export function contractViolation(answer: RawAnswer, opts: { allow5xx?: boolean } = {}): string | undefined {
  const type = String(answer.headers['content-type'] ?? '');
  if (/html/i.test(type) || /<html|<!doctype/i.test(answer.text)) return `HTML answer (${answer.status})`;
  if (answer.status >= 500 && !opts.allow5xx) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (/\n\s+at .+:\d+:\d+/.test(answer.text)) return 'a stack trace in the body';
  if (answer.status < 400) return undefined;
  if (!/^application\/json/.test(type)) return `error answer with Content-Type ${type}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `error body is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : '';
  const { error, message } = (body ?? {}) as { error?: unknown; message?: unknown };
  if (keys !== 'error,message' || typeof error !== 'string' || !/^[a-z][a-z0-9_]*$/.test(error) || typeof message !== 'string' || !message) {
    return `error body is not {error, message}: ${answer.text.slice(0, 200)}`;
  }
  return undefined;
}
