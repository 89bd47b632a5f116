import { TaskState, type AgentCard, type CancelTaskRequest, type StreamResponse, type SubscribeToTaskRequest, type Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { DefaultExecutionEventBusManager, DefaultRequestHandler, type AgentExecutor, type ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aTaskStore } from './a2a-task.store';

const TERMINAL = new Set<TaskState | undefined>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/**
 * The SDK's `DefaultRequestHandler`, told about replicas. Its execution event bus lives in the
 * process running the task; a cancel or a subscribe that reaches another instance would find no
 * bus there, and the SDK would then mark a task that is still running `canceled` in storage (only
 * for the running instance to overwrite it) or end the subscription after one snapshot. Instead,
 * while the task's runner (stored with each save) is another live instance, those calls are
 * refused at once with a clear error. A task whose runner stopped updating it for longer than a
 * turn may last is orphaned (its instance is gone): the SDK's own handling applies (cancel marks
 * it canceled, subscribe answers with the stored task).
 */
export class ReplicaAwareRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: A2aTaskStore,
    executor: AgentExecutor,
    private readonly buses: DefaultExecutionEventBusManager,
    /** After this long without a save, a non-final task's runner counts as gone, ms. */
    private readonly orphanAfterMs: number,
  ) {
    super(card, tasks, executor, buses);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    await this.assertReachable(params.id, context, 'cancel');
    return super.cancelTask(params, context);
  }

  override async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await this.assertReachable(params.id, context, 'subscribe to');
    yield* super.resubscribe(params, context);
  }

  private async assertReachable(taskId: string, context: ServerCallContext, what: string): Promise<void> {
    if (!taskId || this.buses.getByTaskId(taskId, context)) return; // running here (or malformed: the SDK answers)
    const loaded = await this.tasks.loadWithInfo(taskId, context);
    if (!loaded || TERMINAL.has(loaded.task.status?.state)) return;
    const { runner, updatedAt } = loaded.info;
    if (runner && runner !== this.tasks.instanceId && Date.now() - updatedAt.getTime() < this.orphanAfterMs) {
      throw new UnsupportedOperationError(
        `Task ${taskId} is running on another instance of this agent, which alone can ${what} it: retry (another connection may reach it), or poll GetTask until it ends.`,
      );
    }
  }
}
