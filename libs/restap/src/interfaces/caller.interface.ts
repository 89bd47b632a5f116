import type { IncomingHttpHeaders } from 'node:http';

/** What a verified OAuth access token says of its caller (never the token itself). */
export interface RestapCallerAuth {
  /** The token's `sub`, when it names one (a user; a client-credentials token may name the client). */
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId: string;
  /** The token's scopes. */
  readonly scopes: readonly string[];
  /** The issuer that signed it. */
  readonly issuer: string;
  /** The token's `exp` (seconds since the epoch), when it has one: long-lived streams end once it has passed. */
  readonly expiresAt?: number;
}

/**
 * Who asked, as a door saw it: the original request's headers (so a guard reached in-process judges
 * the real caller's credentials) and address. Built once per request by the door that received it
 * (`callerOf`).
 */
export interface RestapCaller {
  /** The request's headers, lower-case names. */
  readonly headers: IncomingHttpHeaders;
  /** The client's address, when known. */
  readonly ip?: string;
  /** The verified OAuth token's caller, when `auth.oauth` is on (the door checked the token). */
  readonly auth?: RestapCallerAuth;
}
