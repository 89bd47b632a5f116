import type { TalkChunk, TalkContext, TalkTool, TalkToolStep } from '../../interfaces/talk.interface';
import type { OpenedTurn, TurnSideRow } from '../../persistence/session.store';
import type { DrainableWork } from '../lifecycle/restap-drain.service';
import type { RestapCaller } from '../caller';
import type { ToolStepLog } from '../tools/talk-tools';
import type { RegisteredHandler } from '../registry/restap.registry';
import type { DecidedApproval } from '../approvals/approval.service';
import type { TurnApprovals } from '../approvals/turn-approvals';
import type { TurnSpan } from '../telemetry/restap.telemetry';
import type { TalkRun } from './talk.run';
import type { TurnDeadline } from './turn-deadlines';
import type { OpenTurn, TurnEnding, TurnResult, TurnStopReason } from './turn.types';

/** An opened turn as the door holds it (OpenTurn); the drain stops it as `shutdown`. */
export class TurnHandle implements OpenTurn, DrainableWork {
  readonly sessionId?: string;
  readonly messageId: string;
  readonly keyHash?: Buffer;
  /** The handler's context, once loaded. */
  ctx!: TalkContext;
  /** Ends the drain's following of the turn (RestapDrain.track); none without a drain. */
  finished?: () => void;
  private ran = false;

  constructor(
    readonly turn: TurnState,
    readonly talkRun: TalkRun,
    readonly span: TurnSpan,
    readonly caller: RestapCaller,
    readonly handler: RegisteredHandler,
    private readonly runOnce: (opened: TurnHandle, emit: (chunk: TalkChunk) => void | Promise<void>) => Promise<TurnResult>,
  ) {
    this.sessionId = turn.sessionId;
    this.messageId = turn.messageId;
    this.keyHash = turn.keyHash;
  }

  run(emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult> {
    if (this.ran) return Promise.reject(new Error('OpenTurn.run() runs a turn once.'));
    this.ran = true;
    return this.runOnce(this, emit);
  }

  stop(reason: TurnStopReason = 'shutdown'): void {
    this.talkRun.stop(reason === 'cancel' ? 'disconnect' : reason);
  }
}

/** What the service keeps of an open turn. */
export interface TurnState {
  /** The person's message; undefined in a turn that continues without one. */
  message?: string;
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
  /** Stores the turn as it stands if it is still running after OPEN_TURN_AFTER_MS (see storeOpen). */
  openDeadline?: TurnDeadline<TurnState>;
  /** That write, in flight or done. */
  opening?: Promise<void>;
  /** The turn's rows, stored while it ran (see SessionStore.openTurn); absent when it is stored only as it ends. */
  opened?: OpenedTurn;
  /** Set once the turn is being stored as it ended: no open write starts after that. */
  ending?: boolean;
  /** The gate of the turn's tool calls (approvals on and tools offered). */
  approvals?: TurnApprovals;
  /** The approvals this turn answers, decided by it. */
  decided?: DecidedApproval[];
  /** The client's tools offered this turn (TurnRequest.clientTools, checked). */
  clientTools?: readonly TalkTool[];
  /** TurnRequest.approvalsInReply. */
  approvalsInReply?: boolean;
  /** The approved (or denied) call, once run: replayed to the model after the user's message. */
  answered: TalkToolStep[];
}
