import { HttpException, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { AgentErrorException, ShuttingDownException } from '../../exceptions';
import { AgentTimeoutException } from '../../exceptions/agent-timeout.exception';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { TalkChunk, TalkContext, TalkTurn } from '../../interfaces/talk.interface';
import type { NewsItem } from '../../interfaces/news.interface';
import { RESTAP_SESSION_STORE, type SessionStore } from '../../persistence/session.store';
import { RestapReplicas } from '../lifecycle/restap-replicas.service';
import { isStorageError } from '../../persistence/storage-errors';
import { hashSessionId, mintSessionId } from '../../sessions/session-id';
import { randomToken } from '../../sessions/random-token';
import { RestapDrain } from '../lifecycle/restap-drain.service';
import type { RestapCaller } from '../caller';
import { CapabilityTools } from '../tools/capability-tools';
import { createTalkTools, resultText, ToolStepLog } from '../tools/talk-tools';
import { answeredClientStep, clientTalkTools, pendingClientCalls } from '../tools/client-tools';
import { RestapRegistry, type RegisteredHandler } from '../registry/restap.registry';
import { createTalkContext, NONE } from './talk.context';
import { assertStorableText } from '../../text/storable-text';
import { RESTAP_TALK_NEWS_SOURCE, type TalkNewsSource } from './talk-news.source';
import { TalkRun, type TalkOutcome } from './talk.run';
import { ApprovalService, type DecidedApproval } from '../approvals/approval.service';
import type { ApprovalAnswer } from '../approvals/approval.types';
import { approvalQuestionText, TurnApprovals } from '../approvals/turn-approvals';
import { toolNameOf } from '../tools/tool-names';
import { InvalidRequestException } from '../../exceptions';
import { startTurnSpan, traceSuffix } from '../telemetry/restap.telemetry';
import type { OpenTurn, TurnRequest, TurnResult } from './turn.types';
import { TurnHandle, type TurnState } from './turn.handle';
import { OPEN_TURN_AFTER_MS, TurnRecorder } from './turn.recorder';

const newMessageId = (): string => `msg_${randomToken(12)}`;

/**
 * A conversation turn, whatever door it came through (RESTAP /talk, MCP, A2A): message + session →
 * a stream of chunks from the `@Talk()` handler, stored as a user/assistant pair. The raw
 * session_id never reaches storage or the log.
 */
@Injectable()
export class TalkService {
  private readonly logger = new Logger('Restap');
  /** Stores the turns' rows (TurnRecorder), the same for every turn. */
  private readonly recorder: TurnRecorder;
  /** How a turn's news is read (`contextBudget.itemChars` per item), the same for every turn. */
  private newsReadOptions?: { maxChars: number };

  /**
   * Runs an opened turn once (OpenTurn.run) in its span's context (as in open(): entered only when
   * it is not the one already active); `execute` ends the span.
   */
  private readonly runOpened = (opened: TurnHandle, emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult> => {
    const { context: turnContext } = opened.span;
    return context.active() === turnContext ? this.execute(opened, emit) : context.with(turnContext, () => this.execute(opened, emit));
  };

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
    @Inject(RESTAP_SESSION_STORE) private readonly store: SessionStore,
    @Optional() @Inject(RESTAP_TALK_NEWS_SOURCE) private readonly newsSource?: TalkNewsSource,
    @Optional() private readonly drain?: RestapDrain,
    @Optional() private readonly tools?: CapabilityTools,
    @Optional() replicas?: RestapReplicas,
    @Optional() private readonly approvals?: ApprovalService,
  ) {
    this.recorder = new TurnRecorder(store, replicas, this);
  }

  /**
   * Opens a turn: mints the session when none is given, loads its history and the news the agent
   * should see, and builds the handler's context. Rejects (502 agent_error without a `@Talk()`
   * handler, 503 when storage is down, 400 for a message that cannot be stored) before anything
   * runs. The turn is followed by the shutdown drain from here on, which may stop it.
   */
  async open(request: TurnRequest): Promise<OpenTurn> {
    // Every door's message goes to a text column: one rule for what can be stored (400 naming the field).
    if (request.message !== undefined) assertStorableText(request.message, 'message');
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
      answered: [],
      approvalsInReply: request.approvalsInReply,
    };
    if (request.approval && !turn.resumed) {
      throw new InvalidRequestException('Field "approval" answers an approval asked in a session: send it with that session_id.');
    }
    if (request.message === undefined && !turn.resumed) {
      throw new InvalidRequestException('A turn without a new message continues a conversation: send the session it continues.');
    }
    // Client tools come back through the session: without one, nothing could carry their results.
    if (request.clientTools?.length && turn.keyHash) {
      turn.clientTools = clientTalkTools(request.clientTools, (name) => this.tools?.find(name) !== undefined);
    }
    if (this.approvals && talk.tools) turn.approvals = new TurnApprovals(this.approvals, request.caller, turn.keyHash);
    const run = new TalkRun(talk.timeoutMs);
    // The session shows in traces only as a prefix of the hash it is stored under.
    const span = startTurnSpan(this.options.agent.name, turn.keyHash?.toString('hex', 0, 8), turn.messageId, this.options.telemetry?.captureContent === true);
    const opened = new TurnHandle(turn, run, span, request.caller, handler, this.runOpened);
    if (this.drain) opened.finished = this.drain.track(opened);
    try {
      // A span that records nothing leaves the turn in the caller's own context: nothing to enter.
      const inTurn = context.active() === span.context;
      const reads = inTurn ? this.startReads(turn) : context.with(span.context, () => this.startReads(turn));
      // A new session's turn awaits its news read alone: no Promise.all, no empty arrays of its own.
      let history: readonly TalkTurn[] = NONE;
      let news: readonly NewsItem[] = NONE;
      if (reads.history && reads.news) [history, news] = await Promise.all([reads.history, reads.news]);
      else if (reads.history) history = await reads.history;
      else if (reads.news) news = await reads.news;
      opened.ctx = inTurn ? this.createContext(turn, request, run, history, news) : context.with(span.context, () => this.createContext(turn, request, run, history, news));
      if (request.message === undefined && !turn.answered.length && !(request.approval && this.approvals)) {
        throw new InvalidRequestException('This turn has no new message and carries no result of a call the conversation waits for, nor an approval answer: there is nothing to continue.');
      }
      // Decided last, once nothing else can refuse the turn: a won decision is then always run.
      // Only a resumed session can answer an approval (no async call otherwise).
      if (this.approvals && turn.keyHash && turn.resumed) turn.decided = await this.decide(this.approvals, request, turn.keyHash);
      return opened;
    } catch (error) {
      span.end('error', 'open_failed');
      opened.finished?.();
      throw error;
    }
  }

  private handler(): RegisteredHandler {
    const handler = this.registry.getTalkHandler();
    if (!handler) throw new AgentErrorException('No @Talk() handler is registered.');
    return handler;
  }

  /**
   * Starts the reads a turn's context needs: the session's history (a session the client sent) and
   * the news the turn sees. Awaited by open() itself: no async frame between it and the store.
   */
  private startReads(turn: TurnState): TurnReads {
    const { talk } = this.options;
    const budget = talk.contextBudget;
    // News first: a news source that throws at once (a host's own) leaves no history read started and unawaited.
    // A session minted for this turn has no feed yet: read only what every session may see.
    const news = this.newsSource?.forTalk(turn.resumed ? turn.sessionId : undefined, (this.newsReadOptions ??= { maxChars: budget.itemChars }));
    // Storage hands over at most `itemChars` of each item and turn: a huge one is never read whole.
    const history = turn.resumed && turn.keyHash ? this.store.loadHistory(turn.keyHash, talk.historyLimit, budget.itemChars) : undefined;
    return { history, news };
  }

  /** The handler's context, from the turn and what startReads read. */
  private createContext(turn: TurnState, request: TurnRequest, run: TalkRun, history: readonly TalkTurn[], news: readonly NewsItem[]): TalkContext {
    const { caller } = request;
    const { talk } = this.options;
    const budget = talk.contextBudget;
    // The client's results of the calls the session waits for: the turn's first step, as if the model had just made it.
    const answered = request.clientResults?.length ? answeredClientStep(pendingClientCalls(history), request.clientResults) : undefined;
    if (answered) {
      const key = Symbol('client results');
      for (const call of answered.calls) turn.toolSteps.open(key, { ...call });
      turn.answered.push(answered);
    }
    const offered = talk.tools || turn.clientTools !== undefined;
    return createTalkContext({
      message: turn.message,
      sessionId: turn.sessionId,
      messageId: turn.messageId,
      history,
      news,
      signals: run,
      headers: caller.headers,
      systemPrompt: talk.systemPrompt,
      budget,
      // Calls run with the credentials of the request that started the turn, no more.
      tools: offered ? createTalkTools(talk.tools ? this.tools : undefined, caller, run.signal, turn.toolSteps, turn.approvals, turn.clientTools) : undefined,
      answered: turn.answered,
    });
  }

  /** The approvals this turn (resuming the session `keyHash`) answers, decided (each won its conditional update), if any. */
  private async decide(approvals: ApprovalService, request: TurnRequest, keyHash: Buffer): Promise<DecidedApproval[] | undefined> {
    const given = request.approval;
    const answers = given === undefined ? undefined : Array.isArray(given) ? (given as readonly ApprovalAnswer[]) : [given as ApprovalAnswer];
    if (!answers) {
      const answer = request.message === undefined ? undefined : await approvals.answerOfMessage(request.message, keyHash);
      return answer && [await approvals.decide(answer, keyHash, request.caller)];
    }
    const decided: DecidedApproval[] = [];
    for (const answer of answers) {
      try {
        decided.push(await approvals.decide(answer, keyHash, request.caller));
      } catch (error) {
        // Refused (unknown, decided, expired): nothing of it is pending, so nothing is lost by going on with those won.
        if (!decided.length || !(error instanceof HttpException)) throw error;
      }
    }
    return decided.length ? decided : undefined;
  }

  /**
   * Runs the approved call (or records the denial) before the handler, framed by `tool.start` /
   * `tool.end` and kept as the turn's first tool step, so the model sees its result after the
   * person's message. Not cut by the turn's signal: an approved action runs to its end (bounded
   * by `capabilityTimeoutMs`), whoever stops reading.
   */
  private async answer(decided: DecidedApproval, turn: TurnState, caller: RestapCaller, emit: (chunk: TalkChunk) => void | Promise<void>): Promise<void> {
    const { record } = decided;
    const id = `call_${randomToken(12)}`;
    const name = record.toolName ?? toolNameOf(record.capability) ?? record.capability;
    const approval = { id: record.id, decision: decided.approved ? 'approved' : 'denied' };
    handOver(emit, { event: 'tool.start', id, name, arguments: decided.args, approval });
    const result = await this.approvals!.run(decided, caller, undefined, resultText);
    const content = resultText(result);
    const call = turn.toolSteps.open(undefined, { id, name, arguments: record.arguments, result: content, ok: result.ok });
    turn.answered.push({ calls: [{ ...call }] });
    handOver(emit, { event: 'tool.end', id, name, ok: result.ok, result: content.length > 200 ? `${content.slice(0, 200)}…` : content, approval });
  }

  /**
   * Pumps the handler, then stores the turn; a reply that cannot be stored is a failure (503). A
   * turn still running after {@link OPEN_TURN_AFTER_MS} is stored as it stands first (see
   * `TurnRecorder.storeOpen`).
   */
  private async execute(opened: TurnHandle, emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult> {
    const { turn, talkRun: run, caller } = opened;
    // The span's status: the result's, 'error' should anything throw.
    let status = 'error';
    try {
      this.recorder.storeIfLasting(turn);
      if (turn.decided) for (const decided of turn.decided) await this.answer(decided, turn, caller, emit);
      const { approvals, toolSteps } = turn;
      const { handler, ctx } = opened;
      const invoke = (): unknown => handler.invoke(ctx);
      // Once a call waits for a person or the client and none is still running, the model is not asked again.
      const pumped =
        approvals || turn.clientTools
          ? (chunk: TalkChunk): void | Promise<void> => {
              const handed = emit(chunk);
              if (approvals?.settled) run.stop('approval');
              else if (toolSteps.handedOff) run.stop('client');
              return handed;
            }
          : emit;
      const pumping = run.pump(invoke, pumped);
      const outcome = pumping instanceof Promise ? await pumping : pumping;
      const asked = approvals?.asked.length ? approvals.asked : undefined;
      const handedOver = toolSteps.handedOver.length && outcome.status === 'complete' ? toolSteps.handedOver.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) : undefined;
      if (asked && outcome.status === 'complete' && turn.approvalsInReply !== false) {
        for (const a of asked) handOver(emit, { event: 'approval.required', ...a });
        const question = approvalQuestionText(asked);
        const delta = outcome.text ? `\n\n${question}` : question;
        handOver(emit, { event: 'message.delta', text: delta });
        outcome.text += delta;
      }
      if (outcome.status === 'aborted') {
        const sideStored = await this.recorder.recordQuietly(turn, outcome);
        status = 'aborted';
        return withSide({ status: 'aborted', text: outcome.text }, sideStored);
      }
      if (outcome.status === 'error') {
        const sideStored = await this.recorder.recordQuietly(turn, outcome);
        const failure = this.failureOf(outcome, turn);
        return withSide({ status: 'error', text: outcome.text, failure }, sideStored);
      }
      let sideStored: true | void;
      try {
        sideStored = await this.recorder.record(turn, outcome);
      } catch (error) {
        this.logFailure('Could not store a /talk turn', error, turn);
        status = 'complete';
        return { status: 'complete', text: outcome.text, failure: error };
      }
      const result: TurnResult = { status: 'complete', text: outcome.text };
      if (asked) {
        result.approvals = asked;
        result.approvalCalls = { ...approvals!.callIds };
      }
      if (handedOver) result.handedOver = handedOver;
      status = 'complete';
      return withSide(result, sideStored === true);
    } finally {
      opened.span.end(status, run.stopReason);
      opened.finished?.();
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
    this.logger.error((turn?.sessionId ? text.split(turn.sessionId).join('[session_id]') : text) + traceSuffix());
  }
}

/** Hands a chunk over without waiting on backpressure (the turn is not pumping); a failed write is the door's to see. */
function handOver(emit: (chunk: TalkChunk) => void | Promise<void>, chunk: TalkChunk): void {
  try {
    void Promise.resolve(emit(chunk)).catch(() => undefined);
  } catch {
    // The door's writer already failed; the turn ends as it would have.
  }
}

/** The reads a turn's context waits for (TalkService.startReads); undefined: not read. */
interface TurnReads {
  history?: Promise<TalkTurn[]>;
  news?: Promise<NewsItem[]>;
}

/** `result`, marked when the door's side row was stored with the turn. */
function withSide(result: TurnResult, sideStored: boolean): TurnResult {
  if (sideStored) result.sideStored = true;
  return result;
}
