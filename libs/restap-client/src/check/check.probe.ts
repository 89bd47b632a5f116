import type { EventSourceMessage } from 'eventsource-parser';
import type { CatalogLocation } from '../catalog/catalog.location';
import { isRecord } from '../catalog/catalog.validator';
import { toRestapError } from '../http/abort';
import { mediaTypeOf, type QueryParams, type Transport } from '../http/transport';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE } from '../restap.constants';
import { readSseFrames } from '../talk/sse.reader';

/** A request the checker sends exactly as described (no client conveniences added). */
export interface ProbeRequest {
  method: string;
  endpoint: string;
  query?: QueryParams;
  headers?: Record<string, string>;
  /** Sent JSON-encoded when defined. */
  body?: unknown;
}

/** A fully read response. */
export interface Probe {
  status: number;
  headers: Headers;
  /** Media type without parameters, lower-cased (`''` when absent). */
  type: string;
  text: string;
  /** Parsed body when it is JSON, whatever the Content-Type says. */
  json?: unknown;
  /** SSE frames up to and including `done`, when the response is `text/event-stream`. */
  frames?: EventSourceMessage[];
}

/** GET of the catalog: the runner sends it once, and discovery.* judge that same exchange. */
export function catalogRequest(location: CatalogLocation): ProbeRequest {
  return { method: 'GET', endpoint: location.catalogUrl, headers: { Accept: CONTENT_TYPE_JSON } };
}

/**
 * Sends one probe and reads the whole answer. An SSE body is read frame by frame and abandoned
 * after `done`, so a server that keeps the connection open does not stall the checker.
 */
export async function sendProbe(transport: Transport, request: ProbeRequest, timeoutMs: number): Promise<Probe> {
  const response = await transport.send({ ...request, timeoutMs });
  const type = mediaTypeOf(response);
  try {
    if (type === CONTENT_TYPE_SSE && response.body) {
      const frames: EventSourceMessage[] = [];
      for await (const frame of readSseFrames(response.body)) {
        frames.push(frame);
        if (frame.event === 'done') break;
      }
      const text = frames.map((f) => `event: ${f.event ?? ''}\ndata: ${f.data}\n\n`).join('');
      return { status: response.status, headers: response.headers, type, text, frames };
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, type, text, json: parseJson(text) };
  } catch (error) {
    throw toRestapError(error, response.url, timeoutMs);
  }
}

/** The parsed JSON of `text`, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The `error` field of a JSON error body. */
export function errorCodeOf(probe: Probe): string | undefined {
  return isRecord(probe.json) && typeof probe.json.error === 'string' ? probe.json.error : undefined;
}

/**
 * What {@link expect400} needs of a check's context: its `expect`. Typed here rather than as
 * `CheckContext`, so the probe never imports the context that imports it.
 */
export interface CheckExpect {
  expect(condition: unknown, detail: string): void;
}

/** Fails the rule unless the probe is `400 {"error": code}`; `what` prefixes the detail. */
export function expect400(ctx: CheckExpect, probe: Probe, code: string, what?: string): void {
  ctx.expect(probe.status === 400 && errorCodeOf(probe) === code,
    `${what ? `${what}: ` : ''}expected 400 {"error":"${code}"}, got ${describe(probe)}`);
}

/** `400 {"error":"x"}` or what actually came back, for failure details. */
export function describe(probe: Probe): string {
  const body = probe.frames ? `${probe.frames.length} SSE frames` : probe.text.replace(/\s+/g, ' ').slice(0, 120) || '(empty body)';
  return `${probe.status} ${probe.type || 'no Content-Type'} ${body}`;
}
