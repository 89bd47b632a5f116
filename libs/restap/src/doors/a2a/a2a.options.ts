import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';
import { positiveInt } from '../../core/options/option-checks';
import { credentialsOf } from '../../core/auth/caller-credentials';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';

/**
 * The A2A door (Agent2Agent protocol 1.0, with 0.3 clients through the SDK's compatibility layer):
 * an agent card at `/.well-known/agent-card.json` and a JSON-RPC endpoint over the `@Talk()`
 * handler and the capabilities. Off unless enabled.
 */
export interface RestapA2aOptions {
  /** Serve the agent card and the A2A endpoint. @default false */
  enabled?: boolean;
  /** Path of the JSON-RPC endpoint, absolute (no global prefix). @default '/a2a' */
  path?: string;
  /**
   * Base path of the HTTP+JSON (REST) binding, absolute: `POST <restPath>/message:send`,
   * `GET <restPath>/tasks/{id}`, … (the SDK's `restHandler`). Both bindings are listed in the
   * card's `supportedInterfaces` and answer the same. `false` serves JSON-RPC only.
   * @default `${path}/rest` ('/a2a/rest')
   */
  restPath?: string | false;
  /**
   * Push notifications (`capabilities.pushNotifications`): a client registers a webhook for a task
   * (`CreateTaskPushNotificationConfig`, or `configuration.taskPushNotificationConfig` on
   * SendMessage) and each of the task's updates, its final state included, is POSTed to it by the
   * SDK's sender from the instance running the task. Configs are kept in PostgreSQL
   * (restap_a2a_push_configs) per task and owner. `false` turns the feature off (the card says so).
   * @default {}
   */
  pushNotifications?: RestapA2aPushOptions | false;
  /**
   * Public base URL written into the card's interface URLs (`https://agent.example.com`), as clients
   * reach the agent behind a proxy. @default the scheme and Host of each card request
   */
  baseUrl?: string;
  /** The card's `version`. @default '1.0.0' */
  version?: string;
  /**
   * How the host's auth appears on the card (`securitySchemes`, A2A/OpenAPI style). The guards
   * themselves are the `guards` option's; this only tells clients what to send.
   * @example { bearer: { type: 'http', scheme: 'bearer' } }
   */
  securitySchemes?: Record<string, RestapA2aSecurityScheme>;
  /**
   * The caller's identity, from its request: tasks are visible only to the identity that created
   * them. Only a SHA-256 of it is stored. @default the `Authorization` header, else `X-API-Key`
   * (no credentials: no identity — such a caller reaches a task by its id, which only its sender
   * learns, or by naming its context; it lists only the tasks of a context it names)
   */
  identify?: (caller: { headers: Record<string, string | string[] | undefined> }) => string | undefined;
  /** Most parts one message may carry (more: JSON-RPC error -32602). @default 64 */
  maxParts?: number;
  /**
   * Largest message, in characters: the strings (and keys) of its parts' text, data and files, of
   * its metadata and ids, one per number (more: JSON-RPC error -32602). @default 100000, as talk.maxMessageLength
   */
  maxMessageChars?: number;
}

/** Push-notification webhooks of the A2A door (`a2a.pushNotifications`). */
export interface RestapA2aPushOptions {
  /**
   * Webhook hosts allowed although they are (or resolve to) loopback, private, link-local or
   * other non-public addresses, which are refused by default (SSRF: a client could otherwise make
   * the agent POST into its own network). Hostnames or IP literals, exact match, e.g.
   * `['hooks.internal', '127.0.0.1']`; `'*'` allows every host. The sample reads
   * `RESTAP_A2A_PUSH_ALLOW_HOSTS` (comma-separated). @default []
   */
  allowHosts?: string[] | '*';
  /** Allow `http:` webhooks (not only `https:`). @default true */
  allowHttp?: boolean;
  /** How long one delivery may take before it is aborted, ms. @default 5000 */
  timeoutMs?: number;
  /** Deliveries of one update retried after a failure (network error or non-2xx), with doubling backoff. @default 3 */
  retries?: number;
  /** Wait before the first retry, ms (then doubled each time). @default 500 */
  retryBackoffMs?: number;
  /** Webhooks one task may have. @default 10 */
  maxConfigsPerTask?: number;
}

/** A security scheme on the agent card (the OpenAPI subset A2A uses). */
export type RestapA2aSecurityScheme =
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | {
      type: 'oauth2';
      description?: string;
      /** The authorization server's metadata URL (RFC 8414), where clients find its endpoints. */
      oauth2MetadataUrl: string;
      /** One flow, when you name it (A2A 1.0 cards carry one). */
      flow?:
        | { type: 'clientCredentials'; tokenUrl: string; scopes: Record<string, string> }
        | { type: 'authorizationCode'; authorizationUrl: string; tokenUrl: string; scopes: Record<string, string>; pkceRequired?: boolean };
    };

export interface ResolvedRestapA2aOptions {
  enabled: boolean;
  path: string;
  restPath: string | false;
  pushNotifications: Required<RestapA2aPushOptions> | false;
  baseUrl?: string;
  version: string;
  securitySchemes: Record<string, RestapA2aSecurityScheme>;
  identify: (caller: { headers: Record<string, string | string[] | undefined> }) => string | undefined;
  maxParts: number;
  maxMessageChars: number;
}

/** What the A2A door reads: the core's options and its own slice. */
export type A2aDoorOptions = ResolvedRestapCoreOptions & { a2a: ResolvedRestapA2aOptions };

/** An absolute path of URL-safe characters without a trailing slash. */
const A2A_PATH = /^\/[A-Za-z0-9._~\/-]*[A-Za-z0-9._~-]$/;

/** Validates `a2a` and fills in its defaults (the one place they live). */
export function resolveA2aOptions(value: RestapA2aOptions | undefined): ResolvedRestapA2aOptions {
  const a2a = value ?? {};
  if (typeof a2a !== 'object') throw new RestapBootstrapError('RestapModule option a2a must be an object: { enabled, path }.');
  const path = a2a.path ?? '/a2a';
  if (typeof path !== 'string' || !A2A_PATH.test(path) || path.startsWith('/.well-known')) {
    throw new RestapBootstrapError(`RestapModule option a2a.path must be an absolute path such as '/a2a', got ${JSON.stringify(path)}.`);
  }
  if (a2a.baseUrl !== undefined && !/^https?:\/\/[^/]+$/.test(a2a.baseUrl.replace(/\/+$/, ''))) {
    throw new RestapBootstrapError(`RestapModule option a2a.baseUrl must be a scheme and host such as 'https://agent.example.com', got ${JSON.stringify(a2a.baseUrl)}.`);
  }
  if (a2a.identify !== undefined && typeof a2a.identify !== 'function') {
    throw new RestapBootstrapError('RestapModule option a2a.identify must be a function (caller) => string | undefined.');
  }
  positiveInt(a2a.maxParts, 'a2a.maxParts');
  positiveInt(a2a.maxMessageChars, 'a2a.maxMessageChars');
  const restPath = a2a.restPath === undefined ? `${path}/rest` : a2a.restPath;
  if (restPath !== false && (typeof restPath !== 'string' || !A2A_PATH.test(restPath) || restPath === path || restPath.startsWith('/.well-known'))) {
    throw new RestapBootstrapError(`RestapModule option a2a.restPath must be an absolute path other than a2a.path, such as '/a2a/rest', or false; got ${JSON.stringify(restPath)}.`);
  }
  return {
    enabled: a2a.enabled === true,
    path,
    restPath,
    pushNotifications: resolveA2aPush(a2a.pushNotifications),
    ...(a2a.baseUrl ? { baseUrl: a2a.baseUrl.replace(/\/+$/, '') } : {}),
    version: a2a.version ?? '1.0.0',
    securitySchemes: { ...(a2a.securitySchemes ?? {}) },
    identify: a2a.identify ?? credentialsOf,
    maxParts: a2a.maxParts ?? 64,
    maxMessageChars: a2a.maxMessageChars ?? 100_000,
  };
}

function resolveA2aPush(value: RestapA2aOptions['pushNotifications']): ResolvedRestapA2aOptions['pushNotifications'] {
  if (value === false) return false;
  const push = value ?? {};
  if (typeof push !== 'object') throw new RestapBootstrapError('RestapModule option a2a.pushNotifications must be an object or false.');
  const allowHosts = push.allowHosts ?? [];
  if (allowHosts !== '*' && (!Array.isArray(allowHosts) || allowHosts.some((h) => typeof h !== 'string' || !h.trim()))) {
    throw new RestapBootstrapError("RestapModule option a2a.pushNotifications.allowHosts must be a list of hostnames, e.g. ['127.0.0.1'], or '*'.");
  }
  positiveInt(push.timeoutMs, 'a2a.pushNotifications.timeoutMs');
  positiveInt(push.retryBackoffMs, 'a2a.pushNotifications.retryBackoffMs');
  positiveInt(push.maxConfigsPerTask, 'a2a.pushNotifications.maxConfigsPerTask');
  if (push.retries !== undefined && (!Number.isInteger(push.retries) || push.retries < 0)) {
    throw new RestapBootstrapError('RestapModule option a2a.pushNotifications.retries must be a whole number ≥ 0.');
  }
  return {
    allowHosts: allowHosts === '*' ? '*' : allowHosts.map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')),
    allowHttp: push.allowHttp ?? true,
    timeoutMs: push.timeoutMs ?? 5_000,
    retries: push.retries ?? 3,
    retryBackoffMs: push.retryBackoffMs ?? 500,
    maxConfigsPerTask: push.maxConfigsPerTask ?? 10,
  };
}
