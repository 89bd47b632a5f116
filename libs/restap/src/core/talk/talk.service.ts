import { HttpException, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { AgentErrorException } from '../../exceptions';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { TalkContext, TalkTurn } from '../../interfaces/talk.interface';
import type { NewsItem } from '../../interfaces/news.interface';
import { RESTAP_SESSION_STORE, type SessionStore } from '../../persistence/session.store';
import { RestapReplicas } from '../lifecycle/restap-replicas.service';
import { hashSessionId, mintSessionId } from '../../sessions/session-id';
import { randomToken } from '../../sessions/random-token';
import { RestapDrain } from '../lifecycle/restap-drain.service';
import { CapabilityTools } from '../tools/capability-tools';
import { createTalkTools, ToolStepLog } from '../tools/talk-tools';
import { answeredClientStep, clientTalkTools, pendingClientCalls } from '../tools/client-tools';
import { RestapRegistry, type RegisteredHandler } from '../registry/restap.registry';
import { createTalkContext, NONE } from './talk.context';
import { assertStorableText } from '../../text/storable-text';
import { RESTAP_TALK_NEWS_SOURCE, type TalkNewsSource } from './talk-news.source';
import { TalkRun } from './talk.run';
import { ApprovalService, type DecidedApproval } from '../approvals/approval.service';
import type { ApprovalAnswer } from '../approvals/approval.types';
import { TurnApprovals } from '../approvals/turn-approvals';
import { InvalidRequestException } from '../../exceptions';
import { startTurnSpan, traceSuffix } from '../telemetry/restap.telemetry';
import type { OpenTurn, TurnRequest } from './turn.types';
import { TurnHandle, type TurnState } from './turn.handle';
import { TurnRecorder } from './turn.recorder';
import { TurnRunner } from './turn.runner';

const newMessageId = (): string => `msg_${randomToken(12)}`;

/**
 * A conversation turn, whatever door it came through (RESTAP /talk, MCP, A2A): message + session →
 * a stream of chunks from the `@Talk()` handler, stored as a user/assistant pair. The raw
 * session_id never reaches storage or the log.
 */
@Injectable()
export class TalkService {
  private readonly logger = new Logger('Restap');
  /** Runs the opened turns (TurnRunner), the same for every turn. */
  private readonly runner: TurnRunner;
  /** How a turn's news is read (`contextBudget.itemChars` per item), the same for every turn. */
  private newsReadOptions?: { maxChars: number };

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
    this.runner = new TurnRunner(options, registry, new TurnRecorder(store, replicas, this), this, approvals);
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
    const opened = new TurnHandle(turn, run, span, request.caller, handler, this.runner.run);
    if (this.drain) opened.finished = this.drain.track(opened);
    try {
      const reads = span.run(() => this.startReads(turn));
      // A new session's turn awaits its news read alone: no Promise.all, no empty arrays of its own.
      let history: readonly TalkTurn[] = NONE;
      let news: readonly NewsItem[] = NONE;
      if (reads.history && reads.news) [history, news] = await Promise.all([reads.history, reads.news]);
      else if (reads.history) history = await reads.history;
      else if (reads.news) news = await reads.news;
      opened.ctx = span.run(() => this.createContext(turn, request, run, history, news));
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
   * Class and message only: request data never reaches the log, and the turn's session_id is
   * masked should a handler's error message quote it.
   */
  logFailure(what: string, error: unknown, turn?: { sessionId?: string }): void {
    const e = error as { name?: unknown; message?: unknown } | undefined;
    const text = `${what}: ${typeof e?.name === 'string' ? e.name : 'Error'}: ${typeof e?.message === 'string' ? e.message : String(error)}`;
    this.logger.error((turn?.sessionId ? text.split(turn.sessionId).join('[session_id]') : text) + traceSuffix());
  }
}

/** The reads a turn's context waits for (TalkService.startReads); undefined: not read. */
interface TurnReads {
  history?: Promise<TalkTurn[]>;
  news?: Promise<NewsItem[]>;
}
