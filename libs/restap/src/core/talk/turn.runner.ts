import { HttpException } from '@nestjs/common';
import { AgentErrorException, ShuttingDownException } from '../../exceptions';
import { AgentTimeoutException } from '../../exceptions/agent-timeout.exception';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { TalkChunk } from '../../interfaces/talk.interface';
import { isStorageError } from '../../persistence/storage-errors';
import { randomToken } from '../../sessions/random-token';
import type { RestapCaller } from '../caller';
import { resultText } from '../tools/talk-tools';
import type { RestapRegistry } from '../registry/restap.registry';
import type { ApprovalService, DecidedApproval } from '../approvals/approval.service';
import { approvalQuestionText } from '../approvals/turn-approvals';
import { toolNameOf } from '../tools/tool-names';
import type { TalkOutcome } from './talk.run';
import type { TurnHandle, TurnState } from './turn.handle';
import type { OPEN_TURN_AFTER_MS, TurnFailureLog, TurnRecorder } from './turn.recorder';
import type { TurnResult } from './turn.types';

/**
 * Runs an opened turn once (OpenTurn.run): the approved call it answers first, then the `@Talk()`
 * handler, whose chunks go to the door's `emit`, then the turn stored (TurnRecorder); ends the
 * turn's span. Never rejects: how the turn ended is its TurnResult.
 */
export class TurnRunner {
  constructor(
    private readonly options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
    private readonly recorder: TurnRecorder,
    private readonly log: TurnFailureLog,
    private readonly approvals?: ApprovalService,
  ) {}

  /** Runs an opened turn once (OpenTurn.run) in its span's context (TurnSpan.run); `execute` ends the span. */
  readonly run = (opened: TurnHandle, emit: (chunk: TalkChunk) => void | Promise<void>): Promise<TurnResult> => opened.span.run(() => this.execute(opened, emit));

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
        this.log.logFailure('Could not store a /talk turn', error, turn);
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
    this.log.logFailure(`@Talk() handler ${handler?.className}.${handler?.methodName} failed`, error, turn);
    return isStorageError(error) ? error : new AgentErrorException();
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

/** `result`, marked when the door's side row was stored with the turn. */
function withSide(result: TurnResult, sideStored: boolean): TurnResult {
  if (sideStored) result.sideStored = true;
  return result;
}
