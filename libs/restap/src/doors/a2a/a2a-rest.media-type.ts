import type { Response } from 'express';

const A2A_JSON = 'application/a2a+json';

/**
 * The media type of the HTTP+JSON binding's answers. A2A 1.0 §11.1 (the binding's protocol
 * requirements) says "Content-Type: `application/json` for requests and responses", as the AIP-193
 * error example of §11.6 shows; the SDK's `restHandler` (1.3.0) writes `application/a2a+json` on every
 * answer, errors included — the type §14.1.1 registers "for the HTTP+JSON/REST binding". So a client
 * that names `application/a2a+json` in its `Accept` (the SDK's own client does) gets it, and any
 * other gets `application/json`, as §11.1 says and as the A2A test kit checks (HTTP_JSON-SVC-001,
 * HTTP_JSON-ERR-001). Streams (`text/event-stream`) are left alone.
 */
export function answerRestMediaType(accept: string | undefined, res: Response): void {
  if (acceptsA2aJson(accept)) return;
  const setHeader = res.setHeader.bind(res);
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    setHeader(name, name.toLowerCase() === 'content-type' && typeof value === 'string' && value.toLowerCase().startsWith(A2A_JSON) ? `application/json${value.slice(A2A_JSON.length)}` : value)) as Response['setHeader'];
}

/** True when `Accept` names application/a2a+json with a non-zero q. */
export function acceptsA2aJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((piece) => piece.trim().toLowerCase());
    if (type !== A2A_JSON) return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
