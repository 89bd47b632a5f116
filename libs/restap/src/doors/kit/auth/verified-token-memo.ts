import { createHash, hash as oneShotHash } from 'node:crypto';

/** How many verified tokens are remembered at most; the least recently used is forgotten first. */
export const VERIFIED_TOKEN_MEMO_SIZE = 1_000;

/**
 * The memo's key for a JWT: the SHA-256 of its signature, the part that makes the token a credential.
 * With its signing input (`signingInputOf`, which the entry keeps and a hit must match) it names one
 * token; the memo never holds a token, nor its signature.
 */
export function tokenKeyOf(token: string): string {
  const signature = token.slice(signatureStart(token));
  return typeof oneShotHash === 'function' ? oneShotHash('sha256', signature, 'base64') : createHash('sha256').update(signature).digest('base64');
}

/** A JWT's signing input (`header.payload`), copied: a slice would keep the whole token alive. */
export function signingInputOf(token: string): string {
  return Buffer.from(token.slice(0, signatureStart(token) - 1), 'utf8').toString('utf8');
}

/** Whether `signingInput` is the one of `token`. */
export function signedAs(token: string, signingInput: string): boolean {
  const end = signatureStart(token) - 1;
  return end === signingInput.length && token.slice(0, end) === signingInput;
}

/** Where a JWT's signature starts: after its second dot. */
function signatureStart(token: string): number {
  return token.indexOf('.', token.indexOf('.') + 1) + 1;
}

/**
 * What a JWT's verification concluded, remembered per token (keyed by its signature's hash) so that a client
 * sending the same access token on every request has its signature checked once, not on each.
 * Bounded (`size` entries, least recently used first out). An entry is used only while its token's
 * `exp` is ahead (checked on every use: a token that has expired since is forgotten and verified again,
 * so it is refused as it would be without the memo), while `until` is ahead (at most as long as the
 * issuer's keys are kept, `jwksCacheMaxAgeMs`: past it a verification fetches them again) and while
 * the key set it was verified against is still the one in use (`epoch`, moved on every JWKS fetch):
 * a key the issuer withdraws stops a memoised token no later than it stops an unmemoised one.
 */
export class VerifiedTokenMemo<T> {
  private readonly entries = new Map<string, { value: T; exp: number; until: number; epoch: number }>();

  constructor(
    private readonly size = VERIFIED_TOKEN_MEMO_SIZE,
    private readonly now: () => number = Date.now,
  ) {}

  /** The remembered value for `key`, if its token has not expired, the entry is still fresh and of the key set `epoch`. */
  get(key: string, epoch = 0): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (entry.exp * 1000 <= now || entry.until <= now || entry.epoch !== epoch) {
      this.entries.delete(key);
      return undefined;
    }
    // Least recently used first out: a hit moves the entry to the end of the Map's order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Remembers `value` for `key` until `exp` (the token's, seconds) or `maxAgeMs` from now, whichever comes first, for the key set `epoch`. */
  set(key: string, value: T, exp: number, maxAgeMs: number, epoch = 0): void {
    if (!(exp * 1000 > this.now())) return;
    this.entries.delete(key);
    if (this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, exp, until: this.now() + maxAgeMs, epoch });
  }

  /** How many tokens are remembered. */
  get count(): number {
    return this.entries.size;
  }
}
