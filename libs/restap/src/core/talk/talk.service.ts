import { HttpException, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { writeJson } from '../../restap/http/restap-json.writer';
import { RestapRegistry, type RegisteredHandler } from '../registry/restap.registry';
import { AgentErrorException, RestapException, ShuttingDownException } from '../../exceptions';
import { AgentTimeoutException } from '../../exceptions/agent-timeout.exception';
import { toErrorBody } from '../../exceptions/restap-exception.filter';
import type { ResolvedRestapOptions } from '../../interfaces/restap-options.interface';
import type { TalkContext, TalkChunk } from '../../interfaces/talk.interface';
import { RESTAP_SESSION_STORE, type SessionStore } from '../../persistence/session.store';
import { isStorageError } from '../../persistence/storage-errors';
import { hashSessionId, mintSessionId } from '../../sessions/session-id';
import { randomToken } from '../../sessions/random-token';
import { createTalkContext } from './talk.context';
import { negotiateTalkFormat, type TalkFormat } from '../../restap/talk/talk.negotiator';
import { RESTAP_TALK_NEWS_SOURCE, type TalkNewsSource } from './talk-news.source';
import { parseTalkRequest } from '../../restap/talk/talk-request.parser';
import { TalkRun, type TalkOutcome } from './talk.run';
import { SseWriter } from '../../restap/talk/sse.writer';
import { StreamSlots } from './stream-slots';
import { RestapDrain } from '../../lifecycle/restap-drain.service';

/** A request that passed validation and negotiation, ready to be answered. */
export interface AcceptedTalk {
  message: string;
  format: TalkFormat;
  /** The session to continue or the one just minted; undefined when sessions are off. */
  sessionId?: string;
  /** `hashSessionId(sessionId)`, computed once: the only form storage sees. */
  keyHash?: Buffer;
  /** True when the client sent the session_id (so there may be history to load). */
  resumed: boolean;
  messageId: string;
  userMessageId: string;
  receivedAt: Date;
}

/** The JSON reply is one of two representations of POST /talk, chosen by Accept. */
const VARY_ACCEPT = { Vary: 'Accept' };

const newMessageId = (): string => `msg_${randomToken(12)}`;

/**
 * POST /talk: validates and negotiates (synchronously, so every request error is a plain JSON
 * error), then loads history and news, runs the `@Talk()` handler, delivers the reply as JSON or
 * SSE and records the turn. The raw session_id never reaches storage or the log.
 */
@Injectable()
export class TalkService {
  private readonly logger = new Logger('Restap');
  private readonly slots: StreamSlots;

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly registry: RestapRegistry,
    @Inject(RESTAP_SESSION_STORE) private readonly store: SessionStore,
    @Optional() @Inject(RESTAP_TALK_NEWS_SOURCE) private readonly newsSource?: TalkNewsSource,
    @Optional() private readonly drain?: RestapDrain,
  ) {
    this.slots = new StreamSlots(options.talk.maxStreams, options.talk.maxStreamsPerClient);
  }

  /** Validates the body, the session_id and Accept; throws the matching RestapException. */
  accept(req: Request): AcceptedTalk {
    const { talk } = this.options;
    const { message, sessionId: given } = parseTalkRequest(req, talk.maxMessageLength);
    const format = negotiateTalkFormat(req.headers.accept, talk.streaming);
    const sessionId = talk.sessions ? (given ?? mintSessionId()) : undefined;
    return {
      message,
      format,
      ...(sessionId ? { sessionId, keyHash: hashSessionId(sessionId) } : {}),
      resumed: talk.sessions && given !== undefined,
      messageId: newMessageId(),
      userMessageId: newMessageId(),
      receivedAt: new Date(),
    };
  }

  /**
   * Answers an accepted turn. Never rejects: every failure is written to `res` or logged. A stream
   * takes one of the open-stream slots (429 when none is left) until its response closes; the
   * turn is followed by the shutdown drain, which may stop it.
   */
  respond(turn: AcceptedTalk, req: Request, res: Response): Promise<void> {
    const run = new TalkRun(this.options.talk.timeoutMs);
    const done = this.answer(turn, run, req, res);
    this.drain?.track({ stop: () => run.stop('shutdown'), done });
    return done;
  }

  private async answer(turn: AcceptedTalk, run: TalkRun, req: Request, res: Response): Promise<void> {
    res.on('close', () => {
      if (!res.writableFinished) run.stop('disconnect');
    });
    try {
      if (turn.format === 'sse') res.on('close', this.slots.acquire(req.ip ?? req.socket.remoteAddress ?? 'unknown'));
      const handler = this.handler();
      const ctx = await this.createContext(turn, req, run.signal);
      const invoke = (): unknown => handler.invoke(ctx);
      await (turn.format === 'sse' ? this.stream(turn, run, invoke, res) : this.reply(turn, run, invoke, res));
    } catch (error) {
      this.sendError(res, error, turn);
    }
  }

  private handler(): RegisteredHandler {
    const handler = this.registry.getTalkHandler();
    if (!handler) throw new AgentErrorException('No @Talk() handler is registered.');
    return handler;
  }

  private async createContext(turn: AcceptedTalk, req: Request, signal: AbortSignal): Promise<TalkContext> {
    const { talk } = this.options;
    const [history, news] = await Promise.all([
      turn.resumed && turn.keyHash ? this.store.loadHistory(turn.keyHash, talk.historyLimit) : [],
      // A session minted for this turn has no feed yet: read only what every session may see.
      this.newsSource ? this.newsSource.forTalk(turn.resumed ? turn.sessionId : undefined) : [],
    ]);
    return createTalkContext({
      message: turn.message,
      sessionId: turn.sessionId,
      messageId: turn.messageId,
      history,
      news,
      signal,
      headers: req.headers,
      systemPrompt: talk.systemPrompt,
    });
  }

  /** JSON: the whole reply, stored before it is sent so the next turn sees it. */
  private async reply(turn: AcceptedTalk, run: TalkRun, invoke: () => unknown, res: Response): Promise<void> {
    const outcome = await run.pump(invoke, () => undefined);
    if (outcome.status === 'aborted') return this.recordQuietly(turn, outcome);
    if (outcome.status === 'error') {
      await this.recordQuietly(turn, outcome);
      return this.sendError(res, this.failureOf(outcome, turn), turn);
    }
    await this.record(turn, outcome); // a storage error here is a 503: the turn is not kept
    if (res.destroyed) return;
    const body = { reply: outcome.text, ...(turn.sessionId ? { session_id: turn.sessionId } : {}), message_id: turn.messageId };
    writeJson(res, 200, JSON.stringify(body), VARY_ACCEPT);
  }

  /** SSE: message.start at once, then deltas and optional events as produced, then message.end and done. */
  private async stream(turn: AcceptedTalk, run: TalkRun, invoke: () => unknown, res: Response): Promise<void> {
    const sse = new SseWriter(res, this.options.talk.heartbeatMs);
    const session = turn.sessionId ? { session_id: turn.sessionId } : {};
    sse.open();
    await sse.send('message.start', { id: turn.messageId, ...session });
    const emit = (chunk: TalkChunk): Promise<void> =>
      chunk.event === 'message.delta' ? sse.send(chunk.event, { id: turn.messageId, text: chunk.text }) : sse.send(chunk.event, chunk);
    const outcome = await run.pump(invoke, emit);
    if (outcome.status === 'aborted') {
      sse.end();
      return this.recordQuietly(turn, outcome);
    }
    if (outcome.status === 'complete') await sse.send('message.end', { id: turn.messageId });
    let failure = outcome.status === 'error' ? this.failureOf(outcome, turn) : undefined;
    try {
      await this.record(turn, outcome);
    } catch (error) {
      this.logFailure('Could not store a /talk turn', error, turn);
      failure ??= error;
    }
    if (failure) {
      const { body } = toErrorBody(failure);
      await sse.send('error', { message: body.message, error: body.error });
    }
    await sse.send('done', session);
    sse.end();
  }

  /** Appends the user message and the reply (with how it ended) to the session, when there is one. */
  private async record(turn: AcceptedTalk, outcome: TalkOutcome): Promise<void> {
    if (!turn.keyHash) return;
    await this.store.appendTurns(turn.keyHash, [
      { role: 'user', content: turn.message, messageId: turn.userMessageId, status: 'complete', createdAt: turn.receivedAt },
      { role: 'assistant', content: outcome.text, messageId: turn.messageId, status: outcome.status, createdAt: new Date() },
    ]);
  }

  private async recordQuietly(turn: AcceptedTalk, outcome: TalkOutcome): Promise<void> {
    try {
      await this.record(turn, outcome);
    } catch (error) {
      this.logFailure(`Could not store an ${outcome.status} /talk turn`, error, turn);
    }
  }

  /** The error a client sees for a failed turn: never a stack, never an internal message. */
  private failureOf(outcome: TalkOutcome, turn: AcceptedTalk): unknown {
    if (outcome.stopped === 'timeout') {
      return new AgentTimeoutException(`The agent did not finish its reply within ${this.options.talk.timeoutMs} ms.`);
    }
    if (outcome.stopped === 'shutdown') return new ShuttingDownException('The agent shut down before the reply was complete; retry.');
    const { error } = outcome;
    if (error instanceof HttpException) return error; // thrown on purpose by the handler
    const handler = this.registry.getTalkHandler();
    this.logFailure(`@Talk() handler ${handler?.className}.${handler?.methodName} failed`, error, turn);
    return isStorageError(error) ? error : new AgentErrorException();
  }

  private sendError(res: Response, error: unknown, turn?: AcceptedTalk): void {
    const { status, body, headers } = toErrorBody(error);
    if (status >= 500 && !(error instanceof RestapException) && !isStorageError(error)) this.logFailure('/talk failed', error, turn);
    if (res.headersSent || res.destroyed) {
      if (!res.writableEnded) res.end();
      return;
    }
    writeJson(res, status, JSON.stringify(body), headers);
  }

  /**
   * Class and message only: request data never reaches the log, and the turn's session_id is
   * masked should a handler's error message quote it.
   */
  private logFailure(what: string, error: unknown, turn?: AcceptedTalk): void {
    const e = error as { name?: unknown; message?: unknown } | undefined;
    const text = `${what}: ${typeof e?.name === 'string' ? e.name : 'Error'}: ${typeof e?.message === 'string' ? e.message : String(error)}`;
    this.logger.error(turn?.sessionId ? text.split(turn.sessionId).join('[session_id]') : text);
  }
}
