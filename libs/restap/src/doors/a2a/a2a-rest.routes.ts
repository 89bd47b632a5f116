/**
 * The A2A 1.0 HTTP+JSON routes the door looks into before the SDK's `restHandler` answers them:
 * which JSON-RPC method each stands for, so one set of checks (A2aRequestCheck) and one context
 * rule (the minted session id) serve both bindings. A path may start with a tenant segment, as the
 * SDK's router accepts.
 */

/** A request of the HTTP+JSON binding, seen as the JSON-RPC call it stands for. */
export interface RestCall {
  /** The A2A 1.0 method name. */
  method: string;
  /** Its parameters: the body, the query and the path's task id. */
  params: Record<string, unknown>;
  /** Its answer is a stream that stays open (`:stream`, `:subscribe`). */
  streams: boolean;
}

const ROUTES: Array<{ verb: string[]; pattern: RegExp; method: string; streams?: boolean }> = [
  { verb: ['POST'], pattern: /^(?:\/[^/]+)?\/message:send$/, method: 'SendMessage' },
  { verb: ['POST'], pattern: /^(?:\/[^/]+)?\/message:stream$/, method: 'SendStreamingMessage', streams: true },
  { verb: ['GET', 'POST'], pattern: /^(?:\/[^/]+)?\/tasks\/([^/]+):subscribe$/, method: 'SubscribeToTask', streams: true },
  { verb: ['POST'], pattern: /^(?:\/[^/]+)?\/tasks\/([^/]+):cancel$/, method: 'CancelTask' },
  { verb: ['GET'], pattern: /^(?:\/[^/]+)?\/tasks\/([^/:]+)$/, method: 'GetTask' },
  { verb: ['GET'], pattern: /^(?:\/[^/]+)?\/tasks$/, method: 'ListTasks' },
];

/** The call a request stands for; undefined for the binding's other routes (push configs, the extended card) or an unknown one. */
export function restMethodOf(verb: string, subPath: string, body: unknown, query: unknown): RestCall | undefined {
  for (const route of ROUTES) {
    if (!route.verb.includes(verb)) continue;
    const match = route.pattern.exec(subPath);
    if (!match) continue;
    const params: Record<string, unknown> = { ...(isObject(query) ? query : {}), ...(isObject(body) ? body : {}) };
    if (match[1] !== undefined) params.id = safeDecode(match[1]);
    // The message object stays the body's own: a context id minted for it reaches the SDK.
    if (isObject(body) && 'message' in body) params.message = body.message;
    return { method: route.method, params, streams: route.streams === true };
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
