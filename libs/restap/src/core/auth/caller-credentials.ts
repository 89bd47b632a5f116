import { createHash } from 'node:crypto';

type CallerLike = { headers: Record<string, string | string[] | undefined>; auth?: { issuer: string; subject?: string; clientId: string } };

/**
 * The credential a caller sent, as an identity: who its OAuth tokens name, else a bearer token or an
 * `X-API-Key` (the same key either way), else the whole `Authorization` value. The default identity
 * of A2A tasks and approvals; hashed before it is stored anywhere.
 */
export function credentialsOf(caller: CallerLike): string | undefined {
  // An OAuth caller is who its tokens name, not one token: tasks stay theirs when the token is renewed.
  if (caller.auth) return `oauth:${caller.auth.issuer} ${caller.auth.subject ?? `client:${caller.auth.clientId}`}`;
  const { authorization, 'x-api-key': apiKey } = caller.headers;
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (bearer) return `key:${bearer}`;
  if (typeof apiKey === 'string' && apiKey.trim()) return `key:${apiKey.trim()}`;
  if (typeof authorization === 'string' && authorization.trim()) return `authorization:${authorization.trim()}`;
  return undefined;
}

/** A caller's credentials as a fingerprint fit for an audit row: the credential itself never is. */
export function fingerprintOf(caller: CallerLike): string {
  const credentials = credentialsOf(caller);
  return credentials ? `cred:${createHash('sha256').update(credentials).digest('hex').slice(0, 16)}` : 'anonymous';
}
