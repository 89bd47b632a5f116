import { HttpException, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { AgentErrorException, ShuttingDownException } from '../../exceptions';
import { AgentTimeoutException } from '../../exceptions/agent-timeout.exception';
import type { ResolvedRestapOptions } from '../../interfaces/restap-options.interface';
import type { TalkChunk, TalkContext, TalkTurn, TalkTurnStatus } from '../../interfaces/talk.interface';
import type { NewsItem } from '../../interfaces/news.interface';
import { RESTAP_SESSION_STORE, type NewTalkTurn, type SessionStore, type TurnSideRow } from '../../persistence/session.store';
import { isStorageError } from '../../persistence/storage-errors';
import { hashSessionId, mintSessionId } from '../../sessions/session-id';
import { randomToken } from '../../sessions/random-token';
import { RestapDrain } from '../lifecycle/restap-drain.service';
import type { RestapCaller } from '../caller';
import { CapabilityTools } from '../tools/capability-tools';
import { createTalkTools, ToolStepLog } from '../tools/talk-tools';
import { RestapRegistry, type RegisteredHandler } from '../registry/restap.registry';
import { createTalkContext, NONE } from './talk.context';
import { assertStorableText } from '../../text/storable-text';
import { RESTAP_TALK_NEWS_SOURCE, type TalkNewsSource } from './talk-news.source';
import { TalkRun, type TalkOutcome, type TalkStopReason } from './talk.run';

/** One turn as a door asks for it: the message, the session to continue (if any), who asks. */
export interface TurnRequest {
  message: string;
  /** A session_id to continue, already validated (`parseSessionId`); none: one is minted when sessions are on. */
  sessionId?: string;
  /**
   * True when `sessionId` was minted by the door for this very turn (`mintSessionId`, never sent by
   * the client): the session has no history and no feed yet, so neither is read — as for a session
   * the service mints itself.
   */
  sessionMinted?: boolean;
  caller: RestapCaller;
  /**
   * A door's own row to store with the turn, in the statement that stores it (see TurnSideRow):
   * asked for once the handler has ended, right before the turn is written; `undefined` for none.
   * Not asked when nothing of the turn is stored (sessions off) or the store cannot write side rows.
   * `TurnResult.sideStored` tells whether it was committed with the turn.
   */
  side?: (ending: TurnEnding) => TurnSideRow | undefined;
}

/** How a turn's handler ended, as a door's side row sees it (see TurnRequest.side). */
export interface TurnEnding {
  status: TalkTurnStatus;
  text: string;
}

/** Why a door stops a turn: its client left (`disconnect`), or it was cancelled on purpose (`cancel`). */
export type TurnStopReason = TalkStopReason | 'cancel';

/** How a turn ended. `failure` is safe to show a client: `toErrorBody(failure)` gives its status and body. */
export interface TurnResult {
  status: TalkTurnStatus;
  /** The reply text produced (all of it when complete). */
  text: string;
  /** Why the turn failed, or why a finished reply could not be stored; absent otherwise. */
  failure?: unknown;
  /** True when the door's side row (TurnRequest.side) was committed with the turn. */
  sideStored?: true;
}

/** A turn whose context is loaded, ready to run once. */
export interface OpenTurn {
  /** The session continued or minted for this turn; undefined when sessions are off. A secret. */
  readonly sessionId?: string;
  /** Id of the assistant message being produced. */
  readonly messageId: string;
  /**
   * Runs the `@Talk()` handler, handing `emit` each chunk (awaited: backpressure), then stores the
   * turn (user message and reply, with how it ended). Never rejects.
   */
  run(emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult>;
  /** Stops the turn: the handler's `ctx.signal` fires; the first reason wins. */
  stop(reason: TurnStopReason): void;
}

const newMessageId = (): string => `msg_${randomToken(12)}`;

/**
 * A conversation turn, whatever door it came through (RESTAP /talk, MCP, A2A): message + session →
 * a stream of chunks from the `@Talk()` handler, stored as a user/assistant pair. The raw
 * session_id never reaches storage or the log.
 */
@Injectable()
export class TalkService {
  private readonly logger = new Logger('Restap');

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly registry: RestapRegistry,
    @Inject(RESTAP_SESSION_STORE) private readonly store: SessionStore,
    @Optional() @Inject(RESTAP_TALK_NEWS_SOURCE) private readonly newsSource?: TalkNewsSource,
    @Optional() private readonly drain?: RestapDrain,
    @Optional() private readonly tools?: CapabilityTools,
  ) {}

  /**
   * Opens a turn: mints the session when none is given, loads its history and the news the agent
   * should see, and builds the handler's context. Rejects (502 agent_error without a `@Talk()`
   * handler, 503 when storage is down, 400 for a message that cannot be stored) before anything
   * runs. The turn is followed by the shutdown drain from here on, which may stop it.
   */
  async open(request: TurnRequest): Promise<OpenTurn> {
    // Every door's message goes to a text column: one rule for what can be stored (400 naming the field).
    assertStorableText(request.message, 'message');
    const handler = this.handler();
    const { talk } = this.options;
    const sessionId = talk.sessions ? (request.sessionId ?? mintSessionId()) : undefined;
    const turn: TurnState = {
      message: request.message,
      sessionId,
      keyHash: sessionId === undefined ? undefined : hashSessionId(sessionId),
      resumed: talk.sessions && request.sessionId !== undefined && request.sessionMinted !== true,
      messageId: newMessageId(),
      userMessageId: newMessageId(),
      receivedAt: new Date(),
      toolSteps: new ToolStepLog(),
      side: request.side,
    };
    const run = new TalkRun(talk.timeoutMs);
    const finished = this.drain ? this.drain.track({ stop: () => run.stop('shutdown') }) : () => undefined;
    try {
      const ctx = await this.createContext(turn, request.caller, run);
      let ran = false;
      return {
        sessionId,
        messageId: turn.messageId,
        stop: (reason) => run.stop(reason === 'cancel' ? 'disconnect' : reason),
        run: async (emit) => {
          if (ran) throw new Error('OpenTurn.run() runs a turn once.');
          ran = true;
          try {
            return await this.execute(turn, run, () => handler.invoke(ctx), emit);
          } finally {
            finished();
          }
        },
      };
    } catch (error) {
      finished();
      throw error;
    }
  }

  private handler(): RegisteredHandler {
    const handler = this.registry.getTalkHandler();
    if (!handler) throw new AgentErrorException('No @Talk() handler is registered.');
    return handler;
  }

  private async createContext(turn: TurnState, caller: RestapCaller, run: TalkRun): Promise<TalkContext> {
    const { talk } = this.options;
    const budget = talk.contextBudget;
    // Storage hands over at most `itemChars` of each item and turn: a huge one is never read whole.
    const historyRead = turn.resumed && turn.keyHash ? this.store.loadHistory(turn.keyHash, talk.historyLimit, budget.itemChars) : undefined;
    // A session minted for this turn has no feed yet: read only what every session may see.
    const newsRead = this.newsSource?.forTalk(turn.resumed ? turn.sessionId : undefined, { maxChars: budget.itemChars });
    // A new session's turn awaits its news read alone: no Promise.all, no empty arrays of its own.
    let history: readonly TalkTurn[] = NONE;
    let news: readonly NewsItem[] = NONE;
    if (historyRead && newsRead) [history, news] = await Promise.all([historyRead, newsRead]);
    else if (historyRead) history = await historyRead;
    else if (newsRead) news = await newsRead;
    return createTalkContext({
      message: turn.message,
      sessionId: turn.sessionId,
      messageId: turn.messageId,
      history,
      news,
      signal: () => run.signal,
      headers: caller.headers,
      systemPrompt: talk.systemPrompt,
      budget,
      // Calls run with the credentials of the request that started the turn, no more.
      ...(talk.tools ? { tools: createTalkTools(this.tools, caller, run.signal, turn.toolSteps) } : {}),
    });
  }

  /** Pumps the handler, then stores the turn; a reply that cannot be stored is a failure (503). */
  private async execute(turn: TurnState, run: TalkRun, invoke: () => unknown, emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult> {
    const outcome = await run.pump(invoke, emit);
    if (outcome.status === 'aborted') {
      return withSide({ status: 'aborted', text: outcome.text }, await this.recordQuietly(turn, outcome));
    }
    if (outcome.status === 'error') {
      const sideStored = await this.recordQuietly(turn, outcome);
      return withSide({ status: 'error', text: outcome.text, failure: this.failureOf(outcome, turn) }, sideStored);
    }
    let sideStored: boolean;
    try {
      sideStored = await this.record(turn, outcome);
    } catch (error) {
      this.logFailure('Could not store a /talk turn', error, turn);
      return { status: 'complete', text: outcome.text, failure: error };
    }
    return withSide({ status: 'complete', text: outcome.text }, sideStored);
  }

  /**
   * Appends the user message and the reply (with how it ended) to the session, when there is one,
   * and the door's side row with them when it gives one. True when a side row was stored.
   */
  private async record(turn: TurnState, outcome: TalkOutcome): Promise<boolean> {
    if (!turn.keyHash) return false;
    const turns: NewTalkTurn[] = [
      { role: 'user', content: turn.message, messageId: turn.userMessageId, status: 'complete', createdAt: turn.receivedAt },
      { role: 'assistant', content: outcome.text, messageId: turn.messageId, status: outcome.status, createdAt: new Date(), toolSteps: turn.toolSteps.snapshot() },
    ];
    const { store } = this;
    if (turn.side && store.appendTurnsWith) {
      const side = turn.side({ status: outcome.status, text: outcome.text });
      if (side) {
        await store.appendTurnsWith(turn.keyHash, turns, side);
        return true;
      }
    }
    await store.appendTurns(turn.keyHash, turns);
    return false;
  }

  private async recordQuietly(turn: TurnState, outcome: TalkOutcome): Promise<boolean> {
    try {
      return await this.record(turn, outcome);
    } catch (error) {
      this.logFailure(`Could not store an ${outcome.status} /talk turn`, error, turn);
      return false;
    }
  }

  /** The error a client sees for a failed turn: never a stack, never an internal message. */
  private failureOf(outcome: TalkOutcome, turn: TurnState): unknown {
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

  /**
   * Class and message only: request data never reaches the log, and the turn's session_id is
   * masked should a handler's error message quote it.
   */
  logFailure(what: string, error: unknown, turn?: { sessionId?: string }): void {
    const e = error as { name?: unknown; message?: unknown } | undefined;
    const text = `${what}: ${typeof e?.name === 'string' ? e.name : 'Error'}: ${typeof e?.message === 'string' ? e.message : String(error)}`;
    this.logger.error(turn?.sessionId ? text.split(turn.sessionId).join('[session_id]') : text);
  }
}

/** `result`, marked when the door's side row was stored with the turn. */
function withSide(result: TurnResult, sideStored: boolean): TurnResult {
  if (sideStored) result.sideStored = true;
  return result;
}

/** What the service keeps of an open turn. */
interface TurnState {
  message: string;
  sessionId?: string;
  /** `hashSessionId(sessionId)`, computed once: the only form storage sees. */
  keyHash?: Buffer;
  /** True when the client sent the session_id (so there may be history to load); false for one minted for this turn. */
  resumed: boolean;
  messageId: string;
  userMessageId: string;
  receivedAt: Date;
  /** The tool calls the handler makes through `ctx.tools`, stored with the reply (also the ones done before an abort). */
  toolSteps: ToolStepLog;
  /** The door's side row, asked for when the turn is stored (see TurnRequest.side). */
  side?: (ending: TurnEnding) => TurnSideRow | undefined;
}
