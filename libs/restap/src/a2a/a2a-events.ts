import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** A JSON data part. */
export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/**
 * Publishes one task's lifecycle on the SDK's event bus: the task first (the SDK requires a task or
 * message as the first event of every execution), then status and artifact updates.
 *
 * `unseen`: a new task of a blocking send. Its id reaches no one before the answer (sent once it
 * is final), so no subscriber watches its events — only the task store, which keeps the last
 * state. It gets fewer events (see {@link start}, and the reply's last chunk in TalkExecutor):
 * each event costs the SDK a load, a merge and a save of the whole task.
 */
export class TaskEvents {
  readonly taskId: string;
  readonly contextId: string;

  constructor(
    private readonly request: RequestContext,
    private readonly bus: ExecutionEventBus,
    readonly unseen = false,
  ) {
    this.taskId = request.taskId;
    this.contextId = request.contextId;
  }

  /**
   * The task as it stands (a follow-up message continues it), else a new submitted one; then
   * `working`. An unseen task is published `working` at once, one event instead of two.
   */
  start(): void {
    const fresh = !this.request.task;
    const task: Task = this.request.task ?? {
      id: this.taskId,
      contextId: this.contextId,
      status: { state: this.unseen ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
      artifacts: [],
      history: [this.request.userMessage],
      metadata: undefined,
    };
    this.bus.publish(AgentEvent.task(task));
    if (!(fresh && this.unseen)) this.status(TaskState.TASK_STATE_WORKING);
  }

  status(state: TaskState, parts?: Part[]): void {
    this.bus.publish(AgentEvent.statusUpdate({
      taskId: this.taskId,
      contextId: this.contextId,
      status: { state, timestamp: new Date().toISOString(), message: parts ? this.agentMessage(parts) : undefined },
      metadata: undefined,
    }));
  }

  artifact(artifactId: string, name: string, parts: Part[], append: boolean, lastChunk: boolean): void {
    this.bus.publish(AgentEvent.artifactUpdate({
      taskId: this.taskId,
      contextId: this.contextId,
      artifact: { artifactId, name, description: '', parts, metadata: undefined, extensions: [] },
      append,
      lastChunk,
      metadata: undefined,
    }));
  }

  private agentMessage(parts: Part[]): Message {
    return { messageId: randomUUID(), contextId: this.contextId, taskId: this.taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
  }
}
