import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import Negotiator from 'negotiator';
import { CONTENT_TYPE_SSE, RESTAP_OPTIONS } from '../../../../restap.constants';
import { LAST_EVENT_ID_HEADER } from '../../../../wire/constants';
import { InvalidLastEventIdException, MissingSessionIdException, NotAcceptableException, TurnNotFoundException } from '../../../../exceptions';
import type { ResolvedRestapCoreOptions, RestapTalkResumeOptions } from '../../../../interfaces/restap-options.interface';
import { RestapDrain } from '../../../../core/lifecycle/restap-drain.service';
import { hashSessionId, resolveSessionId } from '../../../../sessions/session-id';
import { TalkFrameStore, type StoredTalkFrames } from '../../../../persistence/talk-frame.store';
import { isStorageError } from '../../../../persistence/storage-errors';
import { toErrorBody } from '../../../kit/http/restap-exception.filter';
import { writeJson } from '../../../kit/http/restap-json.writer';
import { DoorStreams } from '../../../kit/http/door-streams';
import { SseWriter } from '../sse.writer';
import { TalkFrameRecorder, type KeptFrame } from './talk-frame.recorder';
import { TalkStops } from './talk-stops';
import { TalkFrameWakeups } from './talk-frame.wakeups';

/** A resume request that passed validation. */
export interface AcceptedResume {
  messageId: string;
  sessionId: string;
  keyHash: Buffer;
  /** Frames after this id are sent (0: the whole stream). */
  afterId: number;
}

/** The message ids the module mints (`msg_` + base64url); anything else cannot name a kept turn. */
const MESSAGE_ID = /^msg_[A-Za-z0-9_-]{1,64}$/;
/** An event id as the module writes them: a whole number. */
const EVENT_ID = /^\d{1,9}$/;
/** Rows one read takes at most: a resumed stream holds no more than this in memory. */
const PAGE = 32;
/** Past the turn's own deadline, how long a resume still waits for its closing row (the statement storing it may be slow). */
const STORE_MARGIN_MS = 5_000;
/**
 * While a resume waits for new frames, how often it asks whether the turn was marked interrupted
 * (its replica found dead: no frame will ever wake it), ms. Only that flag is read then, not the frames.
 */
const INTERRUPTED_CHECK_MS = 1_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resumable /talk streams (`talk.resume`, docs/resumable-talk.md): numbers and keeps the frames of
 * a POST /talk stream (see TalkFrameRecorder), and answers `GET {talk path}/{message_id}` with the
 * frames after `Last-Event-ID`, then the turn's new frames as they are kept (read from PostgreSQL
 * when the replica that wrote them says so — TalkFrameWakeups, LISTEN/NOTIFY — so any replica
 * serves it), then `done`. The caller proves it owns the turn with
 * the session_id in `Restap-Session-Id` (never in the URL): a turn is looked up by message_id and
 * the hash of that session_id together, so another session's turn is as unknown as one never run.
 */
@Injectable()
export class TalkResume {
  private readonly logger = new Logger('Restap');
  readonly config: Required<RestapTalkResumeOptions> | false;
  private readonly written = (messageId: string): void => this.wakeups.written(messageId);

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly store: TalkFrameStore,
    private readonly streams: DoorStreams,
    private readonly stops: TalkStops,
    private readonly wakeups: TalkFrameWakeups,
    @Optional() private readonly drain?: RestapDrain,
  ) {
    this.config = options.talk.enabled ? options.talk.resume : false;
  }

  /**
   * A recorder for a new stream's frames, or undefined when resume is off or the turn has no
   * session. `keyHash` is the turn's (OpenTurn.keyHash: the hash of its session_id).
   */
  recorder(messageId: string, keyHash: Buffer | undefined): TalkFrameRecorder | undefined {
    const { config } = this;
    if (!config || keyHash === undefined) return undefined;
    return new TalkFrameRecorder(this.store, messageId, keyHash, config, this.written);
  }

  /**
   * Lets `DELETE {talk path}/{message_id}` stop a running turn, from any replica, until the returned
   * function is called. `recorder` is the turn's ({@link recorder}): it holds the session_id's hash.
   */
  follow(messageId: string, recorder: TalkFrameRecorder | undefined, stop: () => void): () => void {
    if (!this.config || !recorder) return () => undefined;
    return this.stops.follow(messageId, recorder.keyHash, stop);
  }

  /**
   * Answers `DELETE {talk path}/{message_id}` (validated like a resume): 202 `stopping` when the
   * turn runs (here: stopped at once; elsewhere: at the stop's wake-up, see TalkStops), 200 `ended` when it is over,
   * 404 turn_not_found when nothing of it is kept for that session. Never rejects.
   */
  async stop(resume: AcceptedResume, res: Response): Promise<void> {
    const config = this.config as Required<RestapTalkResumeOptions>;
    try {
      let status: 'stopping' | 'ended' | 'unknown' = this.stops.stopHere(resume.messageId, resume.keyHash) ? 'stopping' : 'unknown';
      if (status === 'unknown') status = await this.store.askStop(resume.messageId, resume.keyHash);
      if (status === 'unknown') {
        await sleep(config.flushMs + config.pollMs);
        status = this.stops.stopHere(resume.messageId, resume.keyHash) ? 'stopping' : await this.store.askStop(resume.messageId, resume.keyHash);
      }
      if (status === 'unknown') throw new TurnNotFoundException();
      // Written by this instance for a turn another one runs: wake that one.
      if (status === 'stopping') this.wakeups.stopAsked(resume.messageId);
      writeJson(res, status === 'stopping' ? 202 : 200, JSON.stringify({ status, message_id: resume.messageId }));
    } catch (error) {
      this.fail(res, error);
    }
  }

  /** Validates a resume (or, with `stop`, a stop) request; throws the matching RestapException. */
  accept(req: Request, messageId: string, stop = false): AcceptedResume {
    const accept = req.headers.accept?.trim();
    if (!stop && accept && !new Negotiator({ headers: { accept } }).mediaType([CONTENT_TYPE_SSE])) {
      throw new NotAcceptableException(`A resumed /talk stream is ${CONTENT_TYPE_SSE}; Accept ${JSON.stringify(accept)} does not allow it.`);
    }
    // The header only: a session_id is a secret and never belongs in a URL.
    const sessionId = resolveSessionId(req, undefined, ['header']);
    if (sessionId === undefined) {
      throw new MissingSessionIdException('Resuming a /talk stream needs the session_id that owns the turn, in the Restap-Session-Id header.');
    }
    if (!MESSAGE_ID.test(messageId)) throw new TurnNotFoundException();
    const raw = req.headers[LAST_EVENT_ID_HEADER.toLowerCase()];
    const lastEventId = typeof raw === 'string' ? raw.trim() : raw === undefined ? '' : undefined;
    if (lastEventId === undefined || (lastEventId !== '' && !EVENT_ID.test(lastEventId))) throw new InvalidLastEventIdException();
    return { messageId, sessionId, keyHash: hashSessionId(sessionId), afterId: lastEventId === '' ? 0 : Number(lastEventId) };
  }

  /** Answers an accepted resume. Never rejects: every failure is written to `res` or logged. */
  async respond(resume: AcceptedResume, req: Request, res: Response): Promise<void> {
    const config = this.config as Required<RestapTalkResumeOptions>;
    try {
      let summary = await this.store.summary(resume.messageId, resume.keyHash);
      // A turn's first frames are written within flushMs: a client that lost its stream at once may be early.
      if (!summary) {
        await sleep(config.flushMs + config.pollMs);
        summary = await this.store.summary(resume.messageId, resume.keyHash);
      }
      if (!summary) throw new TurnNotFoundException();
      // The last event of an ended turn is its `done`, one past the last frame kept.
      if (summary.ended && resume.afterId > summary.lastId + 1) {
        throw new InvalidLastEventIdException(`Last-Event-ID ${resume.afterId} is past the end of this turn: its last event id is ${summary.lastId + 1}.`);
      }
      this.streams.hold(req, res);
      if (summary.ended && resume.afterId >= summary.lastId) return this.finish(resume, res, resume.afterId === summary.lastId);
      const deadline = summary.startedAt.getTime() + this.options.talk.timeoutMs + config.flushMs + STORE_MARGIN_MS;
      await this.replayAndFollow(resume, res, deadline);
    } catch (error) {
      this.fail(res, error);
    }
  }

  /** Replays the kept frames after `afterId`, then follows the turn until its closing row, then `done`. */
  private async replayAndFollow(resume: AcceptedResume, res: Response, deadline: number): Promise<void> {
    const config = this.config as Required<RestapTalkResumeOptions>;
    const sse = new SseWriter(res, this.options.talk.heartbeatMs, { retryMs: config.retryMs });
    sse.open();
    const session = { session_id: resume.sessionId };
    let cursor = resume.afterId;
    let orphaned = false;
    // A stream that closes ends its wait at once.
    const left = new AbortController();
    res.once('close', () => left.abort());
    for (;;) {
      // Armed before the read: frames committed between the read and the wait still wake it.
      const armed = new AbortController();
      const woken = this.wakeups.next(resume.messageId, INTERRUPTED_CHECK_MS, AbortSignal.any([left.signal, armed.signal]));
      let rows: StoredTalkFrames[];
      try {
        rows = await this.store.read(resume.messageId, resume.keyHash, cursor, PAGE);
      } catch (error) {
        if (!isStorageError(error)) this.logger.error(`A resumed /talk stream could not read its frames: ${(error as Error)?.name ?? 'Error'}`);
        return this.close(sse, cursor, ['error', JSON.stringify(toErrorBody(error).body)], session);
      }
      let gap = false;
      for (const row of rows) {
        if (sse.closed) return;
        if (row.state === 'cut') {
          return this.close(sse, cursor, ['error', JSON.stringify({ event: 'error', error: 'resume_unavailable', message: 'This turn went past the frames kept for resuming; its stored reply is in the session history.' })], session);
        }
        // Rows of a running turn may commit out of order: never skip a frame, wait for it.
        if (row.firstId > cursor + 1) {
          gap = true;
          break;
        }
        const frames = JSON.parse(row.frames) as KeptFrame[];
        for (let k = 0; k < frames.length; k++) {
          const id = row.firstId + k;
          if (id <= cursor) continue;
          const [event, data] = frames[k];
          const written = sse.replay(id, event, event === 'message.start' ? withSession(data, resume.sessionId) : data);
          cursor = id;
          if (written) await written;
          if (sse.closed) return;
        }
        if (row.state === 'final') {
          sse.push('done', session);
          return sse.end(this.drain?.isDraining());
        }
      }
      if (sse.closed) return;
      if (rows.length === PAGE && !gap) {
        armed.abort();
        continue;
      }
      if (orphaned || Date.now() > deadline || this.drain?.isDraining()) {
        const interrupted: KeptFrame = ['error', JSON.stringify({ event: 'error', error: 'agent_interrupted', message: 'The replica running this turn stopped before the reply was stored; ask again.' })];
        return this.close(sse, cursor, interrupted, session);
      }
      orphaned = await this.nextFrames(resume, woken, left.signal, deadline);
      if (sse.closed) return;
    }
  }

  /**
   * Waits for the turn's next frames (`first`, then further waits of TalkFrameWakeups), checking every
   * {@link INTERRUPTED_CHECK_MS} whether the replica running it died: the replicas sweep marked its
   * reply interrupted (heartbeat stale for orphanAfterMs), and no frame will come. True then (one
   * more read takes any frames it kept before dying, then the end); false when frames may be there,
   * or the deadline passed, the instance drains, the stream closed.
   */
  private async nextFrames(resume: AcceptedResume, first: Promise<boolean>, left: AbortSignal, deadline: number): Promise<boolean> {
    for (let woken = first; ; woken = this.wakeups.next(resume.messageId, INTERRUPTED_CHECK_MS, left)) {
      if (await woken) return false;
      if (left.aborted || Date.now() > deadline || this.drain?.isDraining()) return false;
      try {
        if (await this.store.interrupted(resume.messageId, resume.keyHash)) return true;
      } catch {
        // The deadline still ends the stream.
      }
    }
  }

  /** A client that saw an ended turn's closing frame gets its `done` (`withDone`), one that saw `done` an empty stream. */
  private finish(resume: AcceptedResume, res: Response, withDone: boolean): void {
    const sse = new SseWriter(res, this.options.talk.heartbeatMs, { retryMs: (this.config as Required<RestapTalkResumeOptions>).retryMs });
    sse.open();
    if (withDone) sse.replay(resume.afterId + 1, 'done', JSON.stringify({ event: 'done', session_id: resume.sessionId }));
    sse.end(this.drain?.isDraining());
  }

  /** Ends a resumed stream with a frame of its own (numbered after the last sent) and `done`. */
  private close(sse: SseWriter, cursor: number, frame: KeptFrame, session: Record<string, string>): void {
    const [event, data] = frame;
    const parsed = JSON.parse(data) as Record<string, unknown>;
    sse.replay(cursor + 1, event, JSON.stringify({ ...parsed, event }));
    sse.push('done', session);
    sse.end(this.drain?.isDraining());
  }

  private fail(res: Response, error: unknown): void {
    const { status, body, headers } = toErrorBody(error);
    if (status >= 500 && !isStorageError(error)) this.logger.error(`A /talk resume failed: ${(error as Error)?.name ?? 'Error'}`);
    if (res.headersSent || res.destroyed) {
      if (!res.writableEnded) res.end();
      return;
    }
    writeJson(res, status, JSON.stringify(body), headers);
  }
}

/** message.start as kept (without a session_id), with the caller's session_id back: what the live stream sent. */
function withSession(data: string, sessionId: string): string {
  return JSON.stringify({ ...(JSON.parse(data) as Record<string, unknown>), session_id: sessionId });
}
