import type { Request } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { JWTPayload } from 'jose';
import { CALLER_AUTH, type RestapCallerAuth } from '../../../core/caller';

/** A verified token's AuthInfo without the token: what is remembered of a JWT (frozen, shared by its requests). */
export type VerifiedInfo = Omit<AuthInfo, 'token'>;

/**
 * What the memo keeps of a verified JWT: its signing input, its AuthInfo (without the token), and what `authenticate`
 * ties to each of its requests, built once: the caller's `auth` and `req.user`. These two are
 * copied onto each request, never handed out themselves, so a request gets fresh objects as it
 * did when each was built from the AuthInfo.
 */
export interface VerifiedCaller {
  /** The JWT's signing input (`header.payload`): a hit on the memo's key (its signature's hash) must match it too. */
  readonly signed: string;
  readonly info: VerifiedInfo;
  readonly auth: RestapCallerAuth;
  readonly user: Record<string, unknown>;
}

/** A request's field `authenticate` writes: the SDK's AuthInfo, the claims (as Passport users expect), the core's caller. */
type Authenticated = Request & { auth?: AuthInfo; user?: unknown; [CALLER_AUTH]?: RestapCallerAuth };

/** The caller's `auth` for the core, from a verified token's AuthInfo. */
export function callerAuthOf(info: VerifiedInfo): RestapCallerAuth {
  const extra = (info.extra ?? {}) as { sub?: string; iss: string };
  return {
    clientId: info.clientId,
    scopes: Object.freeze([...info.scopes]),
    issuer: extra.iss,
    ...(extra.sub ? { subject: extra.sub } : {}),
    ...(info.expiresAt !== undefined ? { expiresAt: info.expiresAt } : {}),
  };
}

/** `req.user`: the token's claims, and the scopes as a list. */
function userOf(info: VerifiedInfo, scopes: readonly string[]): Record<string, unknown> {
  return { ...((info.extra ?? {}) as { claims?: JWTPayload }).claims, scopes };
}

/** What the memo keeps of a JWT verified as `info`, whose signing input is `signed`. */
export function verifiedCallerOf(info: VerifiedInfo, signed: string): VerifiedCaller {
  const auth = callerAuthOf(info);
  return { signed, info, auth, user: userOf(info, auth.scopes) };
}

/** Ties a caller verified now (`info`, from the SDK's `verifyBearerToken`) to the request. */
export function tieVerified(req: Request, info: AuthInfo): void {
  const auth = callerAuthOf(info);
  const target = req as Authenticated;
  target.auth = info;
  target.user = userOf(info, auth.scopes);
  target[CALLER_AUTH] = auth;
}

/**
 * Ties a remembered caller to a request sending its `token`: the same fields, keys in the same
 * order, as `verifyBearerToken` then `tieVerified` give (the memo's AuthInfo with the token, then
 * `resourceMetadataUrl`).
 */
export function tieRemembered(req: Request, known: VerifiedCaller, token: string, resourceMetadataUrl: string): void {
  const { info } = known;
  const target = req as Authenticated;
  target.auth = { clientId: info.clientId, scopes: info.scopes, expiresAt: info.expiresAt, resource: info.resource, extra: info.extra, token, resourceMetadataUrl };
  target.user = { ...known.user };
  target[CALLER_AUTH] = { ...known.auth };
}

/**
 * The JWT of an `Authorization: Bearer <token>` header, parsed as the MCP SDK's `verifyBearerToken`
 * parses it (the token is what follows the first space, up to the next), or undefined for anything
 * else (another scheme's spelling, no token, not three dot-separated parts): those take the SDK's
 * path, which answers them as before.
 */
export function bearerJwtOf(header: string | undefined): string | undefined {
  if (header === undefined || !header.startsWith('Bearer ')) return undefined;
  const end = header.indexOf(' ', 7);
  const token = end < 0 ? header.slice(7) : header.slice(7, end);
  const second = token.indexOf('.', token.indexOf('.') + 1);
  return second > 0 && token.indexOf('.', second + 1) < 0 ? token : undefined;
}
