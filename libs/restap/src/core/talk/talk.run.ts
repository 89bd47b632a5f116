import type { TalkChunk, TalkTurnStatus } from '../../interfaces/talk.interface';
import { normalizeChunk, openChunkSource, type ChunkSource } from './talk-chunks';

/**
 * Why a turn was stopped before its handler finished. `approval`: the turn asked a person to
 * approve a call and ends complete, its question as the last of the reply. `client`: the turn
 * handed a call to the client (a client tool) and ends complete; a later turn carries the result.
 */
export type TalkStopReason = 'disconnect' | 'timeout' | 'shutdown' | 'approval' | 'client';

/** How a turn ended, with the reply text produced so far. */
export interface TalkOutcome {
  status: TalkTurnStatus;
  text: string;
  /** The handler's error, or the timeout; set when status is 'error'. */
  error?: unknown;
  /** Set when the turn was stopped (client gone, out of time, or the agent shutting down). */
  stopped?: TalkStopReason;
}

const STOPPED = Symbol('stopped');

/**
 * One handler invocation: owns the turn's AbortSignal and deadline, pulls the handler's output
 * chunk by chunk and hands each to the transport. A stop (client disconnect, timeout or shutdown)
 * fires the signal, stops waiting for the handler — and for a transport whose client stopped
 * reading — at once, and cancels the handler's stream: backpressure never holds a turn past its
 * deadline or the drain.
 */
export class TalkRun {
  /** Made when the signal is first read (or the turn stops): a handler that never reads `ctx.signal` costs none. */
  private controller?: AbortController;
  private reason?: TalkStopReason;
  /** Settles the read in flight when the turn stops (one at a time: nothing piles up per chunk). */
  private interrupt?: () => void;

  constructor(private readonly timeoutMs: number) {}

  /** `ctx.signal`: fires on disconnect or shutdown (AbortError) or timeout (TimeoutError). */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** Why the turn was stopped, if it was. */
  get stopReason(): TalkStopReason | undefined {
    return this.reason;
  }

  /** Stops the turn; the first reason wins. */
  stop(reason: TalkStopReason): void {
    if (this.reason) return;
    this.reason = reason;
    const message =
      reason === 'timeout'
        ? `The turn exceeded ${this.timeoutMs} ms.`
        : reason === 'shutdown'
          ? 'The agent is shutting down.'
          : reason === 'approval'
            ? "The turn waits for a person's approval."
            : reason === 'client'
              ? "The turn waits for the client's tool result."
              : 'The client disconnected.';
    (this.controller ??= new AbortController()).abort(new DOMException(message, reason === 'timeout' ? 'TimeoutError' : 'AbortError'));
    this.interrupt?.();
  }

  /**
   * Invokes the handler and feeds `emit` every chunk, awaiting the promise it returns, if any
   * (backpressure), until the turn stops. Never throws: handler failures come back as an 'error'
   * outcome. A whole reply returned at once and handed over without waiting is settled at once:
   * the outcome then comes back as it is, not as a promise.
   */
  pump(invoke: () => unknown, emit: (chunk: TalkChunk) => void | Promise<void>): TalkOutcome | Promise<TalkOutcome> {
    if (this.stopReason) return this.outcome('');
    const startedAt = Date.now();
    let result: unknown;
    try {
      result = invoke();
    } catch (error) {
      return this.failed('', error);
    }
    if (typeof result !== 'string') return this.pull(result, emit);
    // A whole reply returned at once is one chunk: nothing to pull, nothing to time out unless
    // handing it over waits (SSE backpressure).
    let handed: void | Promise<void>;
    try {
      const chunk = normalizeChunk(result);
      if (!chunk) return this.outcome('');
      handed = emit(chunk);
    } catch (error) {
      return this.failed(result, error);
    }
    return handed ? this.handOver(handed, result, startedAt) : this.outcome(result);
  }

  /** The whole reply `text`, once `handed` (its one chunk's hand-over) settled or the turn stopped. */
  private async handOver(handed: Promise<void>, text: string, startedAt: number): Promise<TalkOutcome> {
    const timer = setTimeout(() => this.stop('timeout'), Math.max(0, this.timeoutMs - (Date.now() - startedAt)));
    try {
      await this.orStop(handed);
    } catch (error) {
      return this.failed(text, error);
    } finally {
      clearTimeout(timer);
    }
    return this.outcome(text);
  }

  /** Pulls the handler's chunks from `result` (a stream, an iterable or a promise) until it ends or the turn stops. */
  private async pull(result: unknown, emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TalkOutcome> {
    let text = '';
    let source: ChunkSource | undefined;
    let finished = false;
    const timer = setTimeout(() => this.stop('timeout'), this.timeoutMs);
    try {
      source = openChunkSource(result);
      for (;;) {
        const step = await this.nextOrStop(source);
        if (step === STOPPED) break;
        if (step.done) {
          finished = true;
          break;
        }
        const chunk = normalizeChunk(step.value);
        if (!chunk) continue;
        if (chunk.event === 'message.delta') text += chunk.text;
        // Only a transport that must wait hands back a promise: no await per chunk otherwise.
        const handed = emit(chunk);
        if (handed) await this.orStop(handed);
        if (this.stopReason) break;
      }
    } catch (error) {
      return this.failed(text, error);
    } finally {
      clearTimeout(timer);
      if (!finished) source?.cancel();
    }
    return this.outcome(text);
  }

  /** A failure of the handler or of the hand-over: an 'error' outcome, unless the turn was stopped meanwhile. */
  private failed(text: string, error: unknown): TalkOutcome {
    return this.stopReason ? this.outcome(text) : { status: 'error', text, error };
  }

  /** The source's next value, or STOPPED as soon as the turn stops, whichever comes first. */
  private nextOrStop(source: ChunkSource): Promise<IteratorResult<unknown> | typeof STOPPED> {
    if (this.reason) return Promise.resolve(STOPPED);
    return this.orStop(source.next());
  }

  /** `pending`'s value, or STOPPED as soon as the turn stops, whichever comes first. */
  private orStop<T>(pending: PromiseLike<T>): Promise<T | typeof STOPPED> {
    if (this.reason) return Promise.resolve(STOPPED);
    return new Promise((resolve, reject) => {
      this.interrupt = () => resolve(STOPPED);
      pending.then(resolve, reject);
    });
  }

  private outcome(text: string): TalkOutcome {
    if (this.stopReason === 'disconnect') return { status: 'aborted', text, stopped: 'disconnect' };
    if (this.stopReason === 'approval' || this.stopReason === 'client') return { status: 'complete', text, stopped: this.stopReason };
    if (this.stopReason) return { status: 'error', text, stopped: this.stopReason, error: this.signal.reason };
    return { status: 'complete', text };
  }
}
