import { RestapError } from '../errors/restap.error';

/** Combines a caller's signal with a deadline; both stay alive while a streamed body is read. */
export function combineSignals(signal: AbortSignal | undefined, timeoutMs: number | undefined): AbortSignal | undefined {
  const signals: AbortSignal[] = [];
  if (signal) signals.push(signal);
  if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) signals.push(AbortSignal.timeout(timeoutMs));
  if (signals.length === 0) return undefined;
  return signals.length === 1 ? signals[0] : AbortSignal.any(signals);
}

/** Maps whatever fetch or a body read threw into a {@link RestapError}. */
export function toRestapError(error: unknown, url: string, timeoutMs?: number): RestapError {
  if (error instanceof RestapError) return error;
  const name = error instanceof Error || error instanceof DOMException ? error.name : '';
  if (name === 'TimeoutError') {
    return new RestapError('timeout', `No complete answer from ${url} within ${timeoutMs ?? '?'} ms`, { cause: error });
  }
  if (name === 'AbortError') return new RestapError('aborted', `Request to ${url} was aborted`, { cause: error });
  const reason = describeCause(error);
  return new RestapError('network_error', `Cannot reach ${url}${reason ? `: ${reason}` : ''}`, { cause: error });
}

/** undici hides the socket error (ECONNREFUSED, ENOTFOUND…) in `cause`; surface it. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error ?? '');
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
  }
  return error.message;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
