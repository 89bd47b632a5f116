import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { StreamSlots } from '../../../core/talk/stream-slots';
import { observeGauge } from '../../../core/telemetry/restap.metrics';
import { METRIC } from '../../../core/telemetry/telemetry.names';

/**
 * The open-stream caps of every door (`talk.maxStreams` per instance, `talk.maxStreamsPerClient`
 * per client): /talk's SSE replies, MCP `subscriptions/listen` streams and A2A streaming calls
 * (`SendStreamingMessage`, `SubscribeToTask`) count together, so no door lets one client hold
 * more long-lived connections than the others. Past a cap: 429 too_many_requests, `Retry-After: 1`.
 * The count is the `restap.streams.open` gauge.
 */
@Injectable()
export class DoorStreams {
  private readonly slots: StreamSlots;

  constructor(@Inject(RESTAP_OPTIONS) options: ResolvedRestapCoreOptions) {
    this.slots = new StreamSlots(options.talk.maxStreams, options.talk.maxStreamsPerClient);
    observeGauge(METRIC.openStreams, 'Long-lived streams open on this instance (SSE /talk, MCP, A2A).', this, (streams) => streams.open);
  }

  /** Streams open now on this instance. */
  get open(): number {
    return this.slots.open;
  }

  /** Takes a slot for the request's client until `res` closes; throws 429 when none is left. */
  hold(req: Request, res: Response): void {
    res.on('close', this.slots.acquire(req.ip ?? req.socket.remoteAddress ?? 'unknown'));
  }
}
