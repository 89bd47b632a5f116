import type { RestapCallerAuth } from '../../../core/caller';
import type { ResolvedRestapOAuthOptions } from '../../../interfaces/restap-options.interface';

/** setTimeout's longest delay (2^31 - 1 ms, about 24.8 days): a later deadline is waited for in steps. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * When the verified token of a request stops being accepted, in ms since the epoch: its `exp`, the
 * instant the door's check (the MCP SDK's `verifyBearerToken`, after jose) starts refusing it.
 * Undefined without OAuth, or for a token without `exp`.
 */
export function tokenDeadlineOf(auth: RestapCallerAuth | undefined, oauth: ResolvedRestapOAuthOptions | undefined): number | undefined {
  if (!oauth || auth?.expiresAt === undefined) return undefined;
  return auth.expiresAt * 1000;
}

/**
 * Calls `end` once `deadline` has passed, unless `until` aborts first (the stream closed on its
 * own). For the streams a door holds open with no end of their own (MCP GET streams,
 * `subscriptions/listen`): every request is checked when it comes, and such a stream is one request
 * that would otherwise outlive its token. The client reconnects with a fresh token, which is checked.
 */
export function endAtTokenExpiry(deadline: number, until: AbortSignal, end: () => void): void {
  if (until.aborted) return;
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = deadline - Date.now();
    if (left <= 0) {
      until.removeEventListener('abort', stop);
      end();
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_DELAY_MS));
    timer.unref();
  };
  const stop = () => clearTimeout(timer);
  until.addEventListener('abort', stop, { once: true });
  arm();
}
