import { EventType, PROTOCOL_VERSION, type BaseEvent, type RunFinishedOutcome } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { Response } from 'express';
import type { TalkChunk } from '../../interfaces/talk.interface';
import { randomToken } from '../../sessions/random-token';

/**
 * One run's AG-UI event stream on an HTTP response, encoded by `@ag-ui/encoder` as the client's
 * `Accept` asks: SSE, or AG-UI's length-prefixed protobuf (`application/vnd.ag-ui.event+proto`).
 * `send` resolves once the socket took the bytes (backpressure reaches the turn's handler). An SSE
 * stream also carries a comment line every `heartbeatMs` (`talk.heartbeatMs`, as /talk's streams),
 * so a proxy does not cut a run that is quiet while the model thinks or a tool runs; AG-UI's SSE
 * readers skip comments.
 */
export class AguiEventStream {
  private readonly encoder: EventEncoder;
  /** Tool calls opened (TOOL_CALL_START … END sent), so a `tool.end` is answered as their result. */
  private readonly calls = new Set<string>();
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly res: Response,
    accept: string | undefined,
    private readonly run: { threadId: string; runId: string; messageId: string },
    private readonly heartbeatMs: number,
  ) {
    this.encoder = new EventEncoder(accept === undefined ? {} : { accept });
  }

  /** The head, RUN_STARTED and the reply's TEXT_MESSAGE_START (the turn's message id, as on /talk). */
  open(): Promise<void> | undefined {
    this.res.writeHead(200, {
      'Content-Type': this.encoder.getContentType(),
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    if (this.encoder.getContentType() === 'text/event-stream') {
      this.heartbeat = setInterval(() => {
        if (this.res.writableLength === 0) this.res.write(': heartbeat\n\n');
      }, this.heartbeatMs);
      this.heartbeat.unref();
      this.res.once('close', () => clearInterval(this.heartbeat));
    }
    const { threadId, runId, messageId } = this.run;
    this.send({ type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION } as BaseEvent);
    return this.send({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' } as BaseEvent);
  }

  /**
   * A chunk of the turn: text as TEXT_MESSAGE_CONTENT; `tool.start` as TOOL_CALL_START, ARGS (the
   * arguments' JSON) and END; `tool.end` as TOOL_CALL_RESULT; `status`, `artifact` and `tool.delta`
   * as CUSTOM events named `restap.<event>` carrying the chunk.
   */
  chunk(chunk: TalkChunk): Promise<void> | undefined {
    const { messageId } = this.run;
    if (chunk.event === 'message.delta') {
      if (!chunk.text) return undefined; // TEXT_MESSAGE_CONTENT's delta may not be empty
      return this.send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: chunk.text } as BaseEvent);
    }
    const { event, ...fields } = chunk as { event: string } & Record<string, unknown>;
    if (event === 'tool.start') return this.startCall(fields);
    // The run's interrupts carry them (see finish).
    if (event === 'approval.required') return undefined;
    if (event === 'tool.end') {
      const toolCallId = this.idOf(fields);
      if (!this.calls.has(toolCallId)) this.startCall({ ...fields, id: toolCallId });
      const result = fields.result;
      return this.send({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `msg_${randomToken(12)}`,
        toolCallId,
        content: typeof result === 'string' ? result : JSON.stringify(result ?? null),
        role: 'tool',
      } as BaseEvent);
    }
    return this.send({ type: EventType.CUSTOM, name: `restap.${event}`, value: fields } as BaseEvent);
  }

  /**
   * TEXT_MESSAGE_END and RUN_FINISHED with the run's outcome (success, naming the frontend tool
   * calls left for the client in `pendingToolCallIds`; or the interrupts it waits on), then the end
   * of the response.
   */
  finish(outcome: RunFinishedOutcome = { type: 'success' }): void {
    const { threadId, runId, messageId } = this.run;
    this.send({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
    this.send({ type: EventType.RUN_FINISHED, threadId, runId, outcome } as BaseEvent);
    this.end();
  }

  /** RUN_ERROR with the failure's client-safe message and error code, then the end of the response. */
  fail(body: { error: string; message: string }): void {
    this.send({ type: EventType.RUN_ERROR, message: body.message, code: body.error } as BaseEvent);
    this.end();
  }

  /** Ends the response without a closing event (the client left). */
  end(): void {
    clearInterval(this.heartbeat);
    if (!this.res.writableEnded) this.res.end();
  }

  private startCall(fields: Record<string, unknown>): Promise<void> | undefined {
    const toolCallId = this.idOf(fields);
    this.calls.add(toolCallId);
    const args = fields.arguments;
    this.send({
      type: EventType.TOOL_CALL_START,
      toolCallId,
      toolCallName: typeof fields.name === 'string' && fields.name ? fields.name : 'tool',
      parentMessageId: this.run.messageId,
    } as BaseEvent);
    if (args !== undefined) this.send({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: typeof args === 'string' ? args : JSON.stringify(args) } as BaseEvent);
    return this.send({ type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent);
  }

  /** The chunk's call id (the model's), or one minted for a handler that gave none. */
  private idOf(fields: Record<string, unknown>): string {
    if (typeof fields.id === 'string' && fields.id) return fields.id;
    const id = `call_${randomToken(9)}`;
    fields.id = id;
    return id;
  }

  private send(event: BaseEvent): Promise<void> | undefined {
    const { res } = this;
    if (res.destroyed || res.writableEnded) return undefined;
    if (res.write(this.encoder.encodeBinary(event))) return undefined;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}
