import type { Response } from 'express';
import { CONTENT_TYPE_SSE } from '../../../restap.constants';
import { releaseParser } from '../../kit/http/held-connection';

/** A comment line: ignored by SSE clients, keeps proxies and load balancers from closing an idle stream. */
const HEARTBEAT = ': heartbeat\n\n';

/**
 * Writes SSE frames straight to the response (spec, "SSE wire format"): an `id:` line on a
 * resumable stream (`talk.resume`), an `event:` line, one
 * `data:` line with the JSON payload (which repeats the event name), a blank line. Each frame is
 * written as it comes; `send` hands back a promise only when the socket is full (it settles on
 * `drain`), so the producer can wait; a heartbeat comment goes out after `heartbeatMs` without any
 * write. Once the client is gone, nothing more is written. A client that stopped reading does
 * not hold the stream past its end (see `end`).
 */
export class SseWriter {
  private heartbeat?: NodeJS.Timeout;
  private draining = false;
  private ended = false;
  /** Written ahead of the first frame: the `retry:` hint of a resumable stream. */
  private prefix = '';
  /** Id of the last frame numbered (resumable streams). */
  private lastId = 0;

  /**
   * @param ids For a resumable stream (`talk.resume`): every frame gets an `id:` line, numbered
   * from 1, and is handed to `onFrame` as it is numbered — also once the client is gone, so the
   * frames of a turn that goes on without its client are still kept. The stream opens with a
   * `retry:` hint.
   */
  constructor(
    private readonly res: Response,
    private readonly heartbeatMs: number,
    private readonly ids?: { retryMs: number; onFrame?: (event: string, data: string) => void },
  ) {
    if (ids) this.prefix = `retry: ${ids.retryMs}\n`;
  }

  /** Id of the last frame numbered; 0 before the first or without ids. */
  get lastEventId(): number {
    return this.lastId;
  }

  /** Sends the status line and headers at once (no body buffering anywhere on the way). */
  open(): void {
    const { res } = this;
    res.statusCode = 200;
    res.setHeader('Content-Type', CONTENT_TYPE_SSE);
    // no-transform: compression middleware (and proxies) must pass frames through, not buffer them.
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('Vary', 'Accept');
    res.flushHeaders();
    this.heartbeat = setTimeout(() => this.beat(), this.heartbeatMs);
  }

  /** True once the stream is ended or the client is gone. */
  get closed(): boolean {
    return this.ended || this.res.destroyed || this.res.writableEnded;
  }

  /**
   * Writes one frame. Returns undefined when the socket took it, or a promise that settles once
   * the socket takes more (or the client is gone): the producer's backpressure. No promise is
   * made for a frame the socket took.
   */
  send(event: string, payload: Record<string, unknown> = {}): Promise<void> | undefined {
    const text = this.frame(event, payload);
    if (this.closed) return undefined;
    this.heartbeat?.refresh();
    if (this.res.write(text)) return undefined;
    return this.drained();
  }

  /** Writes one of the closing frames (`message.end`, `error`, `done`) without waiting: `end` follows. */
  push(event: string, payload: Record<string, unknown> = {}): void {
    const text = this.frame(event, payload);
    if (!this.closed) this.res.write(text);
  }

  /** {@link push} with the frame's data already serialized (its JSON text, whose `event` field is `event`). */
  pushData(event: string, data: string): void {
    const text = this.framed(event, data);
    if (!this.closed) this.res.write(text);
  }

  /**
   * Writes a frame kept earlier, under its own id and with its data as stored (a resumed stream):
   * backpressure as for `send`.
   */
  replay(id: number, event: string, data: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.lastId = id;
    this.heartbeat?.refresh();
    if (this.res.write(`${this.takePrefix()}id: ${id}\nevent: ${event}\ndata: ${data}\n\n`)) return undefined;
    return this.drained();
  }

  /** One SSE frame: `id:` (resumable streams), `event:`, `data:` with the payload (whose `event` field is the event name), blank line. */
  private frame(event: string, payload: Record<string, unknown>): string {
    const { event: _ignored, ...fields } = payload;
    return this.framed(event, JSON.stringify({ event, ...fields }));
  }

  private framed(event: string, data: string): string {
    if (!this.ids) return `event: ${event}\ndata: ${data}\n\n`;
    const id = ++this.lastId;
    this.ids.onFrame?.(event, data);
    return `${this.takePrefix()}id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
  }

  private takePrefix(): string {
    const prefix = this.prefix;
    this.prefix = '';
    return prefix;
  }

  /**
   * Ends the response. What the socket could not take at once gets one heartbeat interval to go
   * out (the heartbeat timer becomes the deadline), then the socket is dropped: a client that
   * stopped reading does not hold it. With `drop` (the agent is shutting down), a client that was
   * not keeping up is dropped at once. Otherwise the heartbeat just stops.
   */
  end(drop = false): void {
    const { res } = this;
    if (this.closed) return clearTimeout(this.heartbeat);
    this.ended = true;
    const behind = res.writableNeedDrain;
    res.end();
    if (res.writableLength === 0 || !this.heartbeat) return clearTimeout(this.heartbeat);
    if (drop && behind) {
      clearTimeout(this.heartbeat);
      res.destroy();
      return;
    }
    this.heartbeat.refresh();
    res.once('close', () => clearTimeout(this.heartbeat));
  }

  private drained(): Promise<void> {
    this.draining = true;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.draining = false;
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  private beat(): void {
    const { res } = this;
    if (this.ended) {
      // The flush deadline of a stalled reader (see end): what it did not take is dropped with the socket.
      if (!res.writableFinished) res.destroy();
      return;
    }
    if (this.closed) return;
    // A stream that went a heartbeat interval without a frame is a held one: its connection gives
    // back its HTTP parser and closes once the stream ends (quick streams keep their connection).
    releaseParser(res);
    // A full socket is not idle: skip, the pending frames keep the connection busy.
    if (!this.draining) res.write(HEARTBEAT);
    this.heartbeat?.refresh();
  }
}
