import type { RestapCatalog } from '../interfaces/catalog.interface';
import type { FetchLike } from '../interfaces/options.interface';

/** A request as the fake fetch received it. */
export interface SeenRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Answers for a fake fetch, in order; a function sees the request. */
export type FakeAnswer = Response | Error | ((request: SeenRequest) => Response | Error);

/**
 * A scripted `fetch` for unit specs (excluded from the build): each call takes the next answer,
 * throwing it when it is an Error (a network failure).
 */
export function fakeFetch(answers: FakeAnswer[]): FetchLike & { seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const fn = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const request: SeenRequest = {
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    seen.push(request);
    const next = answers.shift();
    if (next === undefined) throw new Error(`unexpected request ${request.method} ${url}`);
    const answer = typeof next === 'function' ? next(request) : next;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return Object.assign(fn, { seen });
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** An SSE response whose body arrives in the given chunks (to exercise frames split across reads). */
export function sseResponse(chunks: Array<string | Uint8Array>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** `event: x\ndata: {...}\n\n` with the payload's own "event" field, as the spec's examples. */
export function frame(event: string, data: Record<string, unknown> = {}): string {
  return `event: ${event}\ndata: ${JSON.stringify({ event, ...data })}\n\n`;
}

/** A minimal valid catalog. */
export function catalogFixture(extra: RestapCatalog['capabilities'] = []): RestapCatalog {
  return {
    restap_version: '1.0',
    agent: { name: 'Unit Agent' },
    capabilities: [
      { id: 'talk', method: 'POST', endpoint: '/talk', streaming: { supported: true }, sessions: { supported: true } },
      { id: 'news', method: 'GET', endpoint: '/news' },
      { id: 'news_receive', method: 'POST', endpoint: '/news' },
      ...extra,
    ],
  };
}
