import type { Response } from 'express';
import { CONTENT_TYPE_SSE } from '../../restap.constants';

/** A comment line: ignored by SSE clients, keeps proxies and load balancers from closing an idle stream. */
const HEARTBEAT = ': heartbeat\n\n';

/**
 * Writes SSE frames straight to the response (spec, "SSE wire format"): an `event:` line, one
 * `data:` line with the JSON payload (which repeats the event name), a blank line. Each frame is
 * written as it comes, waiting for `drain` when the socket is full; a heartbeat comment goes out
 * after `heartbeatMs` without any write. Once the client is gone, nothing more is written.
 */
export class SseWriter {
  private heartbeat?: NodeJS.Timeout;
  private draining = false;
  private ended = false;

  constructor(
    private readonly res: Response,
    private readonly heartbeatMs: number,
  ) {}

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

  /** Writes one frame; resolves once the socket takes more (or the client is gone). */
  async send(event: string, payload: Record<string, unknown> = {}): Promise<void> {
    if (this.closed) return;
    const { event: _ignored, ...fields } = payload;
    await this.write(`event: ${event}\ndata: ${JSON.stringify({ event, ...fields })}\n\n`);
  }

  /** Ends the response and stops the heartbeat. */
  end(): void {
    clearTimeout(this.heartbeat);
    if (this.closed) return;
    this.ended = true;
    this.res.end();
  }

  private async write(data: string): Promise<void> {
    this.heartbeat?.refresh();
    if (this.res.write(data)) return;
    this.draining = true;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
    this.draining = false;
  }

  private beat(): void {
    if (this.closed) return;
    // A full socket is not idle: skip, the pending frames keep the connection busy.
    if (!this.draining) this.res.write(HEARTBEAT);
    this.heartbeat?.refresh();
  }
}
