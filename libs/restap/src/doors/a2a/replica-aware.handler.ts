import { TaskState, type AgentCard, type CancelTaskRequest, type Message, type SendMessageRequest, type StreamResponse, type SubscribeToTaskRequest, type Task } from '@a2a-js/sdk';
import { TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { DefaultExecutionEventBusManager, DefaultRequestHandler, type AgentExecutor, type ExtendedAgentCardProvider, type PushNotificationSender, type PushNotificationStore, type ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aTaskStore } from './a2a-task.store';
import { requestStateOf } from './a2a-request.state';
import { a2aCallerOf } from './a2a-task.store';
import type { RemoteCancels } from './remote-cancels';
import type { A2aTaskWakeups } from './a2a-task.wakeups';
import { followStoredTask } from './stored-subscription';

/** Who runs a task, as far as the handler needs to know: is that instance alive (RestapReplicas)? */
export interface ReplicaLiveness {
  isLive(instanceId: string): Promise<boolean>;
}

/** How long a cancel relayed to another instance waits for it to confirm, ms. */
const REMOTE_CANCEL_WAIT_MS = 10_000;

const TERMINAL = new Set<TaskState | undefined>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/**
 * The SDK's `DefaultRequestHandler`, told about replicas. Its execution event bus lives in the
 * process running the task; a cancel or a subscribe that reaches another instance would find no
 * bus there, and the SDK would then mark a task that is still running `canceled` in storage (only
 * for the running instance to overwrite it) or end the subscription after one snapshot. Instead,
 * while the task's runner (stored with each save) is another live instance, a cancel is relayed to
 * it through the task's row (see RemoteCancels) and answered once it is stored `canceled`, and a
 * subscribe follows the task through storage (see followStoredTask). A task whose runner is dead
 * (no heartbeat within the orphan window, see RestapReplicas) is orphaned: a subscribe still
 * follows it through storage — the live instances' sweep fails it within the orphan window, and
 * that failed status is the subscription's final event — and a cancel marks it canceled itself
 * (the SDK's own handling: no bus here, the task is stored canceled).
 */
export class ReplicaAwareRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: A2aTaskStore,
    executor: AgentExecutor,
    private readonly buses: DefaultExecutionEventBusManager,
    private readonly replicas: ReplicaLiveness,
    private readonly remote: RemoteCancels,
    /** Wakes a follower or a relayed cancel when the task's runner wrote it (LISTEN/NOTIFY, issue 38 item 5). */
    private readonly wakeups: A2aTaskWakeups,
    /** Push notifications (when the card has `capabilities.pushNotifications`): where configs live, and who delivers. */
    push?: { store: PushNotificationStore; sender: PushNotificationSender },
    /** GetExtendedAgentCard's card for a caller (when the card has `capabilities.extendedAgentCard`). */
    extendedCard?: ExtendedAgentCardProvider,
  ) {
    super(card, tasks, executor, buses, push?.store, push?.sender, extendedCard);
  }

  /**
   * A blocking send is marked for the executor: its caller learns a new task's id from the answer
   * only, so the task may be published once, when it ends (see TaskEvents). Any send is marked as
   * one whose events no one streams, so its text deltas may go out together (see TaskEvents).
   */
  override sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const state = requestStateOf(context);
    state.blockingSend = params.configuration?.returnImmediately !== true;
    state.unarySend = true;
    return super.sendMessage(withMintedContext(params, context), context);
  }

  override sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return super.sendMessageStream(withMintedContext(params, context), context);
  }

  /** On another live instance than the task's runner: asks the runner (see RemoteCancels) and waits for `canceled`. */
  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const runner = await this.runnerElsewhere(params.id, context);
    if (runner && (await this.replicas.isLive(runner))) {
      // Armed before the flag is set: the runner's write of `canceled` cannot come before the wait.
      const stop = new AbortController();
      const armed = this.wakeups.changed(params.id, stop.signal);
      if (await this.remote.request(params.id, context)) return this.awaitCanceled(params.id, context, armed, stop);
      stop.abort();
    }
    return super.cancelTask(params, context);
  }

  /**
   * On another instance than the task's runner, live or dead: follows the task through storage
   * (see followStoredTask) until it ends — by its runner, or by the sweep of a dead runner's tasks.
   */
  override async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    if (await this.runnerElsewhere(params.id, context)) {
      const load = async () => (await this.tasks.loadWithInfo(params.id, context))?.task;
      const stop = new AbortController();
      const changed = () => this.wakeups.changed(params.id, stop.signal);
      try {
        const armed = changed();
        const first = await load();
        if (first) {
          yield* followStoredTask(first, load, changed, armed);
          return;
        }
      } finally {
        stop.abort(); // releases the wait still armed (a client gone, or the task ended)
      }
    }
    yield* super.resubscribe(params, context);
  }

  /** The instance running the task when it is another one (the task not final, not running here); else undefined. */
  private async runnerElsewhere(taskId: string, context: ServerCallContext): Promise<string | undefined> {
    if (!taskId || this.buses.getByTaskId(taskId, context)) return undefined; // running here (or malformed: the SDK answers)
    const loaded = await this.tasks.loadWithInfo(taskId, context);
    if (!loaded || TERMINAL.has(loaded.task.status?.state)) return undefined;
    const { runner } = loaded.info;
    return runner && runner !== this.tasks.instanceId ? runner : undefined;
  }

  /** Reads the stored task at each of its wake-ups until its runner has stopped it (or it ended otherwise). */
  private async awaitCanceled(taskId: string, context: ServerCallContext, armed: Promise<void>, stop: AbortController): Promise<Task> {
    const deadline = setTimeout(() => stop.abort(), REMOTE_CANCEL_WAIT_MS);
    try {
      let wake = armed;
      while (!stop.signal.aborted) {
        await wake;
        wake = this.wakeups.changed(taskId, stop.signal);
        const loaded = await this.tasks.loadWithInfo(taskId, context);
        const state = loaded?.task.status?.state;
        if (loaded && state === TaskState.TASK_STATE_CANCELED) return loaded.task;
        if (TERMINAL.has(state)) throw new TaskNotCancelableError(`Task not cancelable: ${taskId} ended before the cancel reached it.`);
      }
    } finally {
      clearTimeout(deadline);
      stop.abort();
    }
    throw new UnsupportedOperationError(`Task ${taskId} runs on another instance of this agent, which was asked to cancel it but has not confirmed within ${REMOTE_CANCEL_WAIT_MS / 1000} s: poll GetTask.`);
  }
}

/** The request's message with the context id the door minted for a new conversation (see A2aCaller.mintedContextId), if it did. */
function withMintedContext(params: SendMessageRequest, context: ServerCallContext): SendMessageRequest {
  const minted = a2aCallerOf(context).mintedContextId;
  const message = params.message;
  if (!minted || !message || message.contextId || message.taskId) return params;
  return { ...params, message: { ...message, contextId: minted } };
}
