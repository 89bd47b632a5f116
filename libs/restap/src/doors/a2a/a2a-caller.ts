import type { User } from '@a2a-js/sdk/server';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The A2A caller's original request, as the core's doors pass it on (headers, client address). */
export interface A2aRequestCaller {
  headers: IncomingHttpHeaders;
  ip?: string;
}

/**
 * The SDK's `User` of one A2A request: who called (for ownership of tasks) and the request they
 * came with (for the guards the invoker runs and the @Talk handler's `ctx.headers`).
 *
 * `userName` is the hex SHA-256 of the identity, so the SDK's per-task locks and logs never see a
 * credential. The raw identity stays in memory for this request only: it keys the seal of the
 * task's context id (see {@link sealContextId}).
 */
export class A2aCaller implements User {
  readonly ownerHash: Buffer;
  private ownerHex?: string;

  constructor(
    readonly caller: A2aRequestCaller,
    private readonly identity: string | undefined,
    /** A context id the request itself names (message.contextId, ListTasks contextId), if any. */
    readonly contextHint?: string,
    /** The context id the door minted for this request's new conversation (a new session), if it did. */
    readonly mintedContextId?: string,
  ) {
    this.ownerHash = ownerHashOf(identity);
  }

  get isAuthenticated(): boolean {
    return this.identity !== undefined;
  }

  get userName(): string {
    // Read by the SDK on every event of the task (its per-task lock key).
    return (this.ownerHex ??= this.ownerHash.toString('hex'));
  }

  /** The context id sealed for this identity; null without credentials (nothing secret to key it with). */
  seal(contextId: string): Buffer | null {
    if (this.identity === undefined || !contextId) return null;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyOf(this.identity), iv);
    const sealed = Buffer.concat([cipher.update(contextId, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  /** The context id from a seal made for this identity; undefined if it was made for another. */
  open(box: Buffer | null): string | undefined {
    if (this.identity === undefined || !box || box.length < 29) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyOf(this.identity), box.subarray(0, 12));
      decipher.setAuthTag(box.subarray(12, 28));
      return Buffer.concat([decipher.update(box.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** Callers without credentials share one owner: their tasks are reachable by task id or context. */
const ANONYMOUS = 'restap-a2a:anonymous';

export function ownerHashOf(identity: string | undefined): Buffer {
  return identity === undefined ? ANONYMOUS_HASH : sha256(`restap-a2a:identity:${identity}`);
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The anonymous owner, hashed once (callers only compare it). */
const ANONYMOUS_HASH = sha256(ANONYMOUS);

function keyOf(identity: string): Buffer {
  return Buffer.from(hkdfSync('sha256', identity, 'restap-a2a', 'context-id seal', 32));
}
