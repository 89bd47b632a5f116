import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ERROR_CODES, RESTAP_OPTIONS } from '../../../restap.constants';
import { RestapException } from '../../../exceptions';
import { toErrorBody } from '../../kit/http/restap-exception.filter';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import type { TalkChunk } from '../../../interfaces/talk.interface';
import { isStorageError } from '../../../persistence/storage-errors';
import { callerOf } from '../../../core/caller';
import { DoorStreams } from '../../kit/http/door-streams';
import { TalkService } from '../../../core/talk/talk.service';
import type { OpenTurn, TurnEnding, TurnResult } from '../../../core/talk/turn.types';
import { writeJson } from '../../kit/http/restap-json.writer';
import { RestapDrain } from '../../../core/lifecycle/restap-drain.service';
import { negotiateTalkFormat, type TalkFormat } from './talk.negotiator';
import { parseTalkRequest } from './talk-request.parser';
import { SseWriter } from './sse.writer';
import type { ApprovalAnswer } from '../../../core/approvals/approval.types';
import { TalkResume } from './resume/talk-resume.service';
import type { TalkFrameRecorder } from './resume/talk-frame.recorder';

/** A POST /talk request that passed validation and negotiation, ready to be answered. */
export interface AcceptedTalk {
  message: string;
  format: TalkFormat;
  /** The session_id the client sent, validated; none: the turn mints one. */
  sessionId?: string;
  /** The person's answer to an approval of the session (docs/approvals.md). */
  approval?: ApprovalAnswer;
}

/** The JSON answer of POST /talk; a field left undefined is not sent. */
interface TalkJsonReply {
  reply: string;
  session_id: string | undefined;
  message_id: string;
  approval_required: unknown[] | undefined;
}

/** The JSON reply is one of two representations of POST /talk, chosen by Accept. */
const VARY_ACCEPT = { Vary: 'Accept' };

/** The JSON reply's emit: the text comes whole with the turn's result. */
const noEmit = (): void => undefined;

/**
 * The RESTAP door of a turn: validates and negotiates POST /talk (synchronously, so every request
 * error is a plain JSON error), opens the turn on the core `TalkService` and delivers it as JSON
 * `{reply, session_id}` or as SSE frames (spec, "Streaming /talk responses").
 */
@Injectable()
export class TalkResponder {
  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly talk: TalkService,
    private readonly streams: DoorStreams,
    @Optional() private readonly drain?: RestapDrain,
    @Optional() private readonly resume?: TalkResume,
  ) {}

  /** Validates the body, the session_id and Accept; throws the matching RestapException. */
  accept(req: Request): AcceptedTalk {
    const { talk } = this.options;
    const { message, sessionId, approval } = parseTalkRequest(req, talk.maxMessageLength);
    const format = negotiateTalkFormat(req.headers.accept, talk.streaming);
    return { message, format, sessionId: talk.sessions ? sessionId : undefined, approval };
  }

  /**
   * Answers an accepted turn. Never rejects: every failure is written to `res` or logged. A stream
   * takes one of the open-stream slots (429 when none is left) until its response closes.
   */
  async respond(accepted: AcceptedTalk, req: Request, res: Response): Promise<void> {
    let turn: OpenTurn | undefined;
    let gone = false;
    // A resumable stream's turn outlives its client (`talk.resume`): it finishes and is stored, to be resumed.
    const resumable = accepted.format === 'sse' && Boolean(this.resume?.config);
    let recorder: TalkFrameRecorder | undefined;
    res.on('close', () => {
      if (res.writableFinished) return;
      gone = true;
      if (!resumable) turn?.stop('disconnect');
    });
    try {
      if (accepted.format === 'sse') this.streams.hold(req, res);
      turn = await this.talk.open({
        message: accepted.message,
        sessionId: accepted.sessionId,
        caller: callerOf(req),
        approval: accepted.approval,
        // A completed reply's final frames ride the statement that stores the turn (one commit).
        side: resumable ? (ending: TurnEnding) => (ending.status === 'complete' ? recorder?.finalSide() : undefined) : undefined,
      });
      // Gone before it saw a frame: nobody knows this turn's id to resume it.
      if (gone) turn.stop('disconnect');
      if (resumable) {
        const open = turn;
        recorder = this.resume!.recorder(open.messageId, open.keyHash);
        const unfollow = this.resume!.follow(open.messageId, recorder, () => open.stop('cancel'));
        try {
          await this.stream(open, res, recorder);
        } finally {
          unfollow();
        }
      } else if (accepted.format === 'sse') await this.stream(turn, res);
      else this.reply(turn, await turn.run(noEmit), res);
    } catch (error) {
      this.sendError(res, error, turn);
    }
  }

  /** JSON: the whole reply, stored (the turn's `result`) before it is sent so the next turn sees it. */
  private reply(turn: OpenTurn, result: TurnResult, res: Response): void {
    if (result.status === 'aborted') return;
    if (result.failure !== undefined) return this.sendError(res, result.failure, turn);
    if (res.destroyed) return;
    // Fields left undefined are left out by JSON.stringify. The extension field `approval_required`
    // carries the `approval.required` events (docs/approvals.md); plain clients read the reply.
    const body: TalkJsonReply = { reply: result.text, session_id: turn.sessionId || undefined, message_id: turn.messageId, approval_required: result.approvals };
    writeJson(res, 200, JSON.stringify(body), VARY_ACCEPT);
  }

  /**
   * SSE: message.start at once, then deltas and optional events as produced, then message.end and
   * done — message.end only once the turn is stored: a reply that could not be stored ends with
   * `error` (storage_unavailable) then `done`, as the JSON answer is a 503. The closing frames
   * never wait for a client that stopped reading: the turn is over and stored, the stream ends
   * (see SseWriter.end; during shutdown such a socket is dropped at once).
   */
  private async stream(turn: OpenTurn, res: Response, recorder?: TalkFrameRecorder): Promise<void> {
    const { resume, heartbeatMs } = this.options.talk;
    const ids = resume ? { retryMs: resume.retryMs, onFrame: recorder && ((event: string, data: string) => recorder.record(event, data)) } : undefined;
    const sse = new SseWriter(res, heartbeatMs, ids);
    const session = turn.sessionId ? { session_id: turn.sessionId } : {};
    sse.open();
    // Backpressure, if any, is felt by the first delta: the handler starts at once.
    sse.send('message.start', { id: turn.messageId, ...session });
    const emit = (chunk: TalkChunk): Promise<void> | undefined =>
      chunk.event === 'message.delta' ? sse.send(chunk.event, { id: turn.messageId, text: chunk.text }) : sse.send(chunk.event, chunk);
    const result = await turn.run(emit);
    if (result.sideStored) recorder?.sideStored();
    if (result.status === 'aborted') {
      // A resumable turn is only aborted on purpose (DELETE): its stream, live or resumed, says so.
      if (recorder) {
        sse.push('error', { message: 'The turn was stopped before its reply was complete.', error: ERROR_CODES.turnStopped });
        sse.push('done', session);
      }
      return sse.end();
    }
    if (result.failure === undefined) {
      // A final run stored with the turn already holds this message.end's data.
      const endData = recorder?.endData;
      if (endData !== undefined) sse.pushData('message.end', endData);
      else sse.push('message.end', { id: turn.messageId });
    } else {
      const { body } = toErrorBody(result.failure);
      sse.push('error', { message: body.message, error: body.error });
    }
    sse.push('done', session);
    sse.end(this.drain?.isDraining());
  }

  private sendError(res: Response, error: unknown, turn?: OpenTurn): void {
    const { status, body, headers } = toErrorBody(error);
    if (status >= 500 && !(error instanceof RestapException) && !isStorageError(error)) this.talk.logFailure('/talk failed', error, turn);
    if (res.headersSent || res.destroyed) {
      if (!res.writableEnded) res.end();
      return;
    }
    writeJson(res, status, JSON.stringify(body), headers);
  }
}
