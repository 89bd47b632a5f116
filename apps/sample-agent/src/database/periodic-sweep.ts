/**
 * One `setInterval` (unref'd) for a watchdog that bounds many waits at once: it runs while
 * something is watched and stops once nothing is, instead of a timer armed and cleared per wait.
 * A wait outlasting `timeoutMs` is caught between `timeoutMs` and `timeoutMs + sweepMs`.
 */
export abstract class PeriodicSweep {
  private timer?: NodeJS.Timeout;

  constructor(
    /** The bound on each wait. */
    readonly timeoutMs: number,
    /** How often the waits are looked at. */
    readonly sweepMs = Math.min(500, timeoutMs),
  ) {}

  /** Looks at every wait at `now` (Date.now()). */
  abstract sweep(now: number): void;

  /** Whether nothing is watched any more. */
  protected abstract idle(): boolean;

  /** Something is watched: the interval runs. */
  protected sweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(Date.now()), this.sweepMs);
    this.timer.unref();
  }

  /** Stops the interval if nothing is watched. */
  protected rest(): void {
    if (this.timer && this.idle()) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
