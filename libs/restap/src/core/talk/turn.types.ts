import type { TalkChunk, TalkTurnStatus } from '../../interfaces/talk.interface';
import type { TurnSideRow } from '../../persistence/session.store';
import type { RestapCaller } from '../caller';
import type { ClientTool, ClientToolResult } from '../tools/client-tools';
import type { ApprovalAnswer, ApprovalRequest } from '../approvals/approval.types';
import type { TalkStopReason } from './talk.run';

/** One turn as a door asks for it: the message, the session to continue (if any), who asks. */
export interface TurnRequest {
  /**
   * The person's message. Absent: the turn continues the conversation without one (an AG-UI run
   * that carries a client tool's result or an approval's answer); it must then carry
   * `clientResults` answering a call the session waits for, or `approval` (400 otherwise).
   */
  message?: string;
  /**
   * Tools the client runs itself (AG-UI frontend tools), offered to the model beside the
   * capabilities for this turn, under `clientTalkTools`' naming rule (400 otherwise). Offered only
   * in a session: a call of one ends the turn, and its result comes back in a later turn.
   */
  clientTools?: readonly ClientTool[];
  /**
   * The client's results of calls the session waits for (handed to it by an earlier turn). A
   * result answering no pending call (an earlier one, resent with the conversation) is ignored.
   */
  clientResults?: readonly ClientToolResult[];
  /**
   * False when the door shows the approvals a turn asks for in its own protocol (AG-UI
   * interrupts): the question is then not added to the reply text and no `approval.required`
   * chunk is sent. @default true
   */
  approvalsInReply?: boolean;
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
  /**
   * The person's answer to an approval asked earlier in this session (issue 35): decided when the
   * turn opens (404/409/410 if it cannot be), run — approved — before the handler, whose model
   * then sees the result. Without it, a plain "approve"/"deny" message answers the session's one
   * pending approval. Several answers (AG-UI resumes every interrupt of a run at once) are decided
   * in order: the first one that cannot be refuses the turn; once one is decided, a later one that
   * cannot be (it is no longer pending: nothing to run) is passed over.
   */
  approval?: ApprovalAnswer | readonly ApprovalAnswer[];
}

/** How a turn's handler ended, as a door's side row sees it (see TurnRequest.side). */
export interface TurnEnding {
  status: TalkTurnStatus;
  text: string;
  /** The approvals the turn asked a person for (it waits for them: issue 35). */
  approvals?: ApprovalRequest[];
}

/** Why a door stops a turn: its client left (`disconnect`), or it was cancelled on purpose (`cancel`). */
export type TurnStopReason = Exclude<TalkStopReason, 'approval' | 'client'> | 'cancel';

/** How a turn ended. `failure` is safe to show a client: `toErrorBody(failure)` gives its status and body. */
export interface TurnResult {
  status: TalkTurnStatus;
  /** The reply text produced (all of it when complete). */
  text: string;
  /** Why the turn failed, or why a finished reply could not be stored; absent otherwise. */
  failure?: unknown;
  /** True when the door's side row (TurnRequest.side) was committed with the turn. */
  sideStored?: true;
  /** The approvals the turn asked a person for; the gated calls did not run (issue 35). */
  approvals?: ApprovalRequest[];
  /** The model's call id each of `approvals` holds, by approval id. */
  approvalCalls?: Readonly<Record<string, string>>;
  /** The client tools' calls the turn handed to the client and ended on (their results come in a later turn). */
  handedOver?: Array<{ id: string; name: string; arguments: string }>;
}

/** A turn whose context is loaded, ready to run once. */
export interface OpenTurn {
  /** The session continued or minted for this turn; undefined when sessions are off. A secret. */
  readonly sessionId?: string;
  /** Id of the assistant message being produced. */
  readonly messageId: string;
  /** `hashSessionId(sessionId)`, the form storage keys the session by; undefined without a session. */
  readonly keyHash?: Buffer;
  /**
   * Runs the `@Talk()` handler, handing `emit` each chunk (awaited: backpressure), then stores the
   * turn (user message and reply, with how it ended). Never rejects.
   */
  run(emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult>;
  /** Stops the turn: the handler's `ctx.signal` fires; the first reason wins. */
  stop(reason: TurnStopReason): void;
}
