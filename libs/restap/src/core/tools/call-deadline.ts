/**
 * The signal a tool call runs under: aborted by its caller's signal or at its timeout, whichever
 * comes first, as `AbortSignal.any([signal, AbortSignal.timeout(ms)])` would be — the same reasons
 * (the caller's, or a `TimeoutError` DOMException) — but `end()` drops the timer and the listener
 * once the call is over, so nothing of a finished call fires or is kept for the GC to track.
 *
 * @example
 * const deadline = new CallDeadline(signal, 30_000);
 * try { await invoke(deadline.signal); } finally { deadline.end(); }
 */
export class CallDeadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer?: ReturnType<typeof setTimeout>;
  private expired = false;

  constructor(
    private readonly caller: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    this.signal = this.controller.signal;
    if (caller?.aborted) {
      this.controller.abort(caller.reason);
      return;
    }
    caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.timer = setTimeout(this.onTimeout, timeoutMs);
    this.timer.unref();
  }

  /** True when the call was aborted by its timeout (not by its caller). */
  get timedOut(): boolean {
    return this.expired;
  }

  /** The call is over: its timer and its listener on the caller's signal go. */
  end(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private readonly onCallerAbort = (): void => {
    clearTimeout(this.timer);
    this.controller.abort(this.caller!.reason);
  };

  private readonly onTimeout = (): void => {
    this.caller?.removeEventListener('abort', this.onCallerAbort);
    this.expired = true;
    this.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  };
}
