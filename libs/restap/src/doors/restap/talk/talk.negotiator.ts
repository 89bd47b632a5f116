import Negotiator from 'negotiator';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE } from '../../../restap.constants';
import { NotAcceptableException } from '../../../exceptions';

/** How a /talk reply is delivered. */
export type TalkFormat = 'json' | 'sse';

// Offered with the charset they are sent in, so `Accept: application/json; charset=utf-8` matches too.
const JSON_OFFER = `${CONTENT_TYPE_JSON}; charset=utf-8`;
const SSE_OFFER = `${CONTENT_TYPE_SSE}; charset=utf-8`;
/** Accept values that can only mean JSON, answered without parsing: what most clients send. */
const PLAIN_JSON: ReadonlySet<string> = new Set(['*/*', CONTENT_TYPE_JSON, JSON_OFFER]);

/**
 * Spec, "Content negotiation": JSON by default (no Accept, empty, any wildcard), SSE only when the
 * client lists `text/event-stream` itself and streaming is on; q-values decide between the two,
 * then specificity, then the client's order (so `text/event-stream, application/json` streams);
 * `q=0` means not acceptable; neither acceptable → 406.
 *
 * @example
 * negotiateTalkFormat('text/event-stream, application/json', true) // 'sse'
 * negotiateTalkFormat('text/event-stream', false)                  // throws 406
 */
export function negotiateTalkFormat(accept: string | undefined, streaming: boolean): TalkFormat {
  const header = accept?.trim() ? accept : undefined; // an empty Accept means no preference
  if (header === undefined || PLAIN_JSON.has(header)) return 'json';
  const negotiator = new Negotiator({ headers: { accept: header } });
  // Wildcards make SSE acceptable but do not ask for it: it must be named.
  const named = header !== undefined && negotiator.mediaTypes().some((type) => type.toLowerCase() === CONTENT_TYPE_SSE);
  const offers = streaming && named ? [SSE_OFFER, JSON_OFFER] : [JSON_OFFER];
  const best = negotiator.mediaType(offers);
  if (best === SSE_OFFER) return 'sse';
  if (best === JSON_OFFER) return 'json';
  throw new NotAcceptableException(
    streaming
      ? `Accept ${JSON.stringify(accept)} allows neither ${CONTENT_TYPE_JSON} nor ${CONTENT_TYPE_SSE}: accept one of them.`
      : `Accept ${JSON.stringify(accept)} does not allow ${CONTENT_TYPE_JSON}, and this agent does not stream: accept ${CONTENT_TYPE_JSON}.`,
  );
}
