import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { TaskState, type Part } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { InvalidSessionIdException } from '../../exceptions';
import { parseSessionId } from '../../sessions/session-id';
import { checkTurnMessage } from '../../core/talk/turn-message.rule';
import { toErrorBody } from '../kit/http/restap-exception.filter';
import type { TalkChunk } from '../../interfaces/talk.interface';
import { TalkService } from '../../core/talk/talk.service';
import type { OpenTurn, TurnEnding } from '../../core/talk/turn.types';
import { A2aTaskStore, a2aCallerOf } from './a2a-task.store';
import { requestStateOf } from './a2a-request.state';
import { dataPart, TaskEvents, textPart } from './a2a-events';
import { CapabilityTools } from '../../core/tools/capability-tools';
import { answerApproval, approvalAnswerOf, capabilityCallOf, runCapability } from './capability.call';
import { ApprovalService } from '../../core/approvals/approval.service';
import type { ApprovalAnswer } from '../../core/approvals/approval.types';
import { hashSessionId } from '../../sessions/session-id';
import { CapabilityTasks } from '../../core/tasks/capability-tasks';

/** Why a cancelled task's turn and capability calls stop. */
const TASK_CANCELED = 'The task was canceled.';

/** A task running on this instance: what cancel needs to reach it. */
interface Running {
  turn?: OpenTurn;
  cancelled: boolean;
  /** Aborts a capability call (made for capability calls only: a signal costs a conversation turn for nothing). */
  abort?: AbortController;
}

/**
 * The A2A agent. A message whose data part is `{ capability, arguments }` runs that capability
 * (see runCapability). Otherwise its text parts are a turn of the `@Talk()` handler through the core
 * TalkService, in the session named by the message's `contextId` (a new context is a new session,
 * minted by the door). Publishes the task, `working`, the reply as one artifact appended delta by
 * delta, tool steps and status chunks as status messages, then `completed` — or `failed` with the
 * client-safe message of the failure, or `canceled` when a cancel stopped the turn.
 */
@Injectable()
export class A2aAgentExecutor implements AgentExecutor {
  private readonly logger = new Logger('Restap');
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly talk: TalkService,
    private readonly tools: CapabilityTools,
    private readonly tasks: A2aTaskStore,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
    @Optional() private readonly approvals?: ApprovalService,
    @Optional() private readonly capabilityTasks?: CapabilityTasks,
  ) {}

  /** Ids of the tasks running on this instance. */
  runningTaskIds(): string[] {
    return [...this.running.keys()];
  }

  /** Stops the task's turn through its `ctx.signal`; the run then ends `canceled`. */
  cancelTask = async (taskId: string): Promise<void> => {
    const running = this.running.get(taskId);
    if (!running) return;
    running.cancelled = true;
    running.turn?.stop('cancel');
    running.abort?.abort(new Error(TASK_CANCELED));
  };

  /** Never rejects: every outcome is published on the bus as the task's final status. */
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    // A new task of a blocking send: no one but this request knows its id before the answer.
    const state = requestStateOf(request.context);
    const events = new TaskEvents(request, bus, !request.task && state.blockingSend, state.unarySend, state.unarySend && !state.blockingSend);
    const running: Running = { cancelled: false };
    this.running.set(request.taskId, running);
    // The task store puts the context id back into what it loads for this request.
    state.contextId = request.contextId;
    // A task the SDK drew an id for (no stored task continued): the store has nothing of it to read yet.
    if (!request.task) state.newTaskId = request.taskId;
    try {
      events.start();
      const call = capabilityCallOf(request.userMessage.parts);
      let answer = this.approvals ? approvalAnswerOf(request.userMessage.parts) : undefined;
      // An approval a conversation turn asked for is answered by a turn: the model goes on with the result.
      if (answer && answer !== 'invalid' && (await this.approvals!.doorOf(answer.id, hashSessionId(request.contextId))) === 'talk') {
        await this.converse(request, events, running, answer);
        answer = undefined;
      } else if (call || answer) {
        running.abort = new AbortController();
        if (running.cancelled) running.abort.abort(new Error(TASK_CANCELED));
        const { caller } = a2aCallerOf(request.context);
        if (answer) await answerApproval(this.approvals!, answer, request.contextId, caller, events, running.abort.signal);
        else {
          const approvals = this.approvals && { service: this.approvals, contextId: request.contextId };
          // A long-running capability (task: true) may run capabilityTasks.timeoutMs: its task outlives the send.
          const long = typeof call!.capability === 'string' && this.capabilityTasks?.isTask(call!.capability) === true;
          await runCapability(this.tools, call!, caller, events, running.abort.signal, approvals, long ? this.options.capabilityTasks.timeoutMs : undefined);
        }
      } else {
        await this.converse(request, events, running);
      }
    } catch (error) {
      // A request the core refused (a 4xx: e.g. text it cannot store) is the client's; the rest is logged.
      const { status } = toErrorBody(error);
      if (status >= 500) this.logger.error(`A2A task failed: ${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}`.split(request.contextId).join('[context_id]'));
      events.status(status < 500 ? TaskState.TASK_STATE_REJECTED : TaskState.TASK_STATE_FAILED, failureParts(error));
    } finally {
      this.running.delete(request.taskId);
    }
  }

  private async converse(request: RequestContext, events: TaskEvents, running: Running, approval?: ApprovalAnswer): Promise<void> {
    const text =
      request.userMessage.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .filter(Boolean)
        .join('\n') || (approval?.decision ?? '');
    if (!this.options.talk.enabled) {
      return events.status(TaskState.TASK_STATE_REJECTED, [textPart('This agent takes no conversation: call a capability with a data part {"capability": "<id>", "arguments": {...}}.')]);
    }
    if (!text) {
      return events.status(TaskState.TASK_STATE_REJECTED, [textPart('Send the conversation as text parts, or call a capability with a data part {"capability": "<id>", "arguments": {...}}.')]);
    }
    try {
      // The turn rule every door shares (not blank, code points, storable), and the session id's.
      checkTurnMessage(text, this.options.talk.maxMessageLength);
      if (this.options.talk.sessions) parseSessionId(request.contextId);
    } catch (error) {
      const detail = error instanceof InvalidSessionIdException ? ' contextId is this agent\'s session id: omit it to start a conversation, or send one it returned.' : '';
      return events.status(TaskState.TASK_STATE_REJECTED, [textPart(`${(error as Error).message}${detail}`)]);
    }
    const caller = a2aCallerOf(request.context);
    // An unseen task that completes is written in the statement that stores its turn, and published
    // once that statement has committed: no statement of its own.
    let sealed = false;
    const sealCompleted = (ending: TurnEnding) => {
      // A turn that waits for a person's approval does not complete: the task goes input-required.
      if (ending.approvals) return undefined;
      const task = ending.status === 'complete' ? events.seal(TaskState.TASK_STATE_COMPLETED) : undefined;
      if (!task) return undefined; // published already (it ran past UNSEEN_TASK_MS): saved as usual
      finish();
      sealed = true;
      return this.tasks.sideRow(task, request.context);
    };
    const turn = await this.talk.open({
      message: text,
      sessionId: this.options.talk.sessions ? request.contextId : undefined,
      // A context the door minted for this request is a new session: no history or feed to read yet.
      sessionMinted: caller.mintedContextId === request.contextId,
      caller: caller.caller,
      side: sealCompleted,
      ...(approval ? { approval } : {}),
    });
    running.turn = turn;
    if (running.cancelled) turn.stop('cancel');
    const reply = turn.messageId;
    let appended = false;
    const publish = (text: string, last: boolean): void => {
      events.artifact(reply, 'reply', [textPart(text)], appended, last);
      appended = true;
    };
    // An unseen task's latest delta waits for the next chunk, so that the last one carries lastChunk
    // itself (no empty closing chunk); anyone else gets each delta as it comes.
    let held: string | undefined;
    const release = (last: boolean): void => {
      if (held !== undefined) publish(held, last);
      held = undefined;
    };
    // The last chunk: an empty reply still gets its (empty) artifact.
    const finish = (): void => {
      if (held !== undefined) release(true);
      else events.artifact(reply, 'reply', appended ? [] : [textPart('')], appended, true);
    };
    const result = await turn.run((chunk) => {
      if (chunk.event === 'message.delta') {
        if (!events.unseen) return publish(chunk.text, false);
        release(false);
        held = chunk.text;
      } else {
        release(false);
        publishStep(events, chunk);
      }
    });
    if (result.status === 'aborted' || result.failure !== undefined) {
      release(false);
      if (result.status === 'aborted') return events.status(TaskState.TASK_STATE_CANCELED, [textPart('Canceled: the turn was stopped before the reply was complete.')]);
      return events.status(TaskState.TASK_STATE_FAILED, failureParts(result.failure));
    }
    if (sealed) {
      if (result.sideStored) this.tasks.sideStored(request.context);
      return events.publishSealed();
    }
    finish();
    if (result.approvals) {
      const how = `Continue this task with a data part {"approval": {"id": "apr_…", "decision": "approve"}} (or "deny"), or answer "approve" / "deny".`;
      return events.status(TaskState.TASK_STATE_INPUT_REQUIRED, [
        textPart(`${result.approvals.map((a) => `Approval needed: ${a.question} (approval ${a.id}, until ${a.expires_at})`).join('\n')}\n${how}`),
        dataPart({ approval: result.approvals[0], ...(result.approvals.length > 1 ? { approvals: result.approvals } : {}) }),
      ]);
    }
    events.status(TaskState.TASK_STATE_COMPLETED);
  }
}

/** Tool steps and status chunks as status messages (still `working`); `artifact` chunks as data artifacts. */
function publishStep(events: TaskEvents, chunk: TalkChunk): void {
  const { event, ...rest } = chunk;
  const fields = rest as Record<string, unknown>;
  if (event === 'artifact') {
    const id = typeof fields.id === 'string' ? fields.id : `${events.taskId}-artifact-${Math.random().toString(36).slice(2, 10)}`;
    events.artifact(id, typeof fields.name === 'string' ? fields.name : 'artifact', [dataPart(fields)], false, true);
    return;
  }
  const name = typeof fields.name === 'string' ? fields.name : undefined;
  const label =
    event === 'status' ? String(fields.message ?? '')
      : event === 'tool.start' ? `Using tool ${name ?? ''}`.trim()
      : event === 'tool.end' ? `Tool ${name ?? ''} finished`.replace('  ', ' ')
      : String(fields.text ?? '');
  events.status(TaskState.TASK_STATE_WORKING, [textPart(label), dataPart({ event, ...fields })]);
}

/** The client-safe text of a failure (no stack, no internal message) and its `{error, message}`. */
function failureParts(failure: unknown): Part[] {
  const { body } = toErrorBody(failure);
  return [textPart(body.message), dataPart(body)];
}
