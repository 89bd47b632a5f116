import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import { joinText } from './a2a-task.copies';

/**
 * How long the task of a blocking send stays unpublished at most (see {@link TaskEvents}): past
 * this, it is published (and stored) `working`, readable from any instance while its turn runs.
 */
export const UNSEEN_TASK_MS = 100;

/** How long text deltas of a SendMessage's task are held to go out together at most, ms. */
export const COALESCE_MS = 100;

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
 * `coalesce`: the task of a SendMessage (no one streams its events). For each event of such a
 * request the SDK deep-copies the whole task (`structuredClone`, for push notifications), history
 * included, so a message's size would be paid again for every delta of the reply. Instead its text
 * deltas go out together, one artifact update per {@link COALESCE_MS} at most — as often as the task
 * store writes the task anyway — and any other event first publishes what is held, so the order
 * stays. A streaming call (SendStreamingMessage) gets every delta as it comes (issue 32, item 2).
 *
 * `unseen`: a new task of a blocking send. Its id reaches no one before the answer, and nothing of
 * it is stored before its first event: until it is published, no one can watch it. Each event costs
 * the SDK a load, a merge, clones and a save of the whole task, so such a task is built here and
 * published once, as one `task` event, when it ends (or needs input) — or `working`, as it stands,
 * once it has run {@link UNSEEN_TASK_MS}, after which it gets the usual updates. A turn that ends
 * sooner is one event instead of a task, an artifact and a status update.
 */
export class TaskEvents {
  readonly taskId: string;
  readonly contextId: string;
  /** The unseen task, until published. */
  private pending?: Task;
  private publishTimer?: NodeJS.Timeout;
  /** Text appended to an artifact, held to go out together (see `coalesce`). */
  private held?: { artifact: Artifact; append: boolean; lastChunk: boolean };
  private heldTimer?: NodeJS.Timeout;

  constructor(
    private readonly request: RequestContext,
    private readonly bus: ExecutionEventBus,
    readonly unseen = false,
    private readonly coalesce = false,
    /** A SendMessage with `returnImmediately`: the SDK answers with the first event. */
    private readonly returnsAtOnce = false,
  ) {
    this.taskId = request.taskId;
    this.contextId = request.contextId;
  }

  /** The task as it stands (a follow-up message continues it), else a new submitted one; then `working`. */
  start(): void {
    if (this.unseen && !this.request.task) {
      this.pending = {
        id: this.taskId,
        contextId: this.contextId,
        status: this.statusOf(TaskState.TASK_STATE_WORKING),
        artifacts: [],
        history: [this.request.userMessage],
        metadata: undefined,
      };
      this.publishTimer = setTimeout(() => this.publishPending(), UNSEEN_TASK_MS).unref();
      return;
    }
    // A new task of a send that returns at once (`returnImmediately`) is answered with its first
    // event: published `working` (it is running), not `submitted` then `working` (issue 38, item 8).
    const immediate = !this.request.task && this.returnsAtOnce;
    this.bus.publish(AgentEvent.task(this.request.task ?? {
      id: this.taskId,
      contextId: this.contextId,
      status: this.statusOf(immediate ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED),
      artifacts: [],
      history: [this.request.userMessage],
      metadata: undefined,
    }));
    if (!immediate) this.status(TaskState.TASK_STATE_WORKING);
  }

  status(state: TaskState, parts?: Part[]): void {
    this.release();
    const status = this.statusOf(state, parts);
    // The SDK ends a blocking send on an input-required *status update*, not on a task that already
    // stands in that state: the unseen task goes out as it stands, then the update.
    if (this.pending && state === TaskState.TASK_STATE_INPUT_REQUIRED) this.publishPending();
    if (this.pending) {
      // What the SDK's ResultManager makes of a status update: the status, its message added to the history.
      this.pending.status = status;
      if (status.message) this.pending.history.push(status.message);
      if (state !== TaskState.TASK_STATE_WORKING) this.publishPending();
      return;
    }
    this.bus.publish(AgentEvent.statusUpdate({ taskId: this.taskId, contextId: this.contextId, status, metadata: undefined }));
  }

  /**
   * Ends the unseen task in `state` without publishing it: the task as it will be published by
   * {@link publishSealed}, for a store to write beforehand (with the turn that ended it). Undefined
   * when the task was published already. Until published it stays unseen: a later `status` (a
   * failure to store the turn) replaces the state and publishes it.
   */
  seal(state: TaskState): Task | undefined {
    if (!this.pending) return undefined;
    clearTimeout(this.publishTimer);
    this.pending.status = this.statusOf(state);
    return this.pending;
  }

  /** Publishes the task {@link seal} ended, as it was sealed. */
  publishSealed(): void {
    this.publishPending();
  }

  artifact(artifactId: string, name: string, parts: Part[], append: boolean, lastChunk: boolean): void {
    const artifact: Artifact = { artifactId, name, description: '', parts, metadata: undefined, extensions: [] };
    if (this.pending) return appendArtifact(this.pending, artifact, append);
    if (this.coalesce) {
      const held = this.held;
      if (held && append && held.artifact.artifactId === artifactId) {
        held.artifact.parts = joinText([...held.artifact.parts, ...parts]);
        held.lastChunk = lastChunk;
        if (lastChunk) this.release();
        return;
      }
      this.release();
      if (!lastChunk) {
        this.held = { artifact, append, lastChunk };
        this.heldTimer = setTimeout(() => this.release(), COALESCE_MS).unref();
        return;
      }
    }
    this.publishArtifact(artifact, append, lastChunk);
  }

  /** Publishes the text held (see `coalesce`), if any. */
  private release(): void {
    const held = this.held;
    if (!held) return;
    clearTimeout(this.heldTimer);
    this.held = undefined;
    this.publishArtifact(held.artifact, held.append, held.lastChunk);
  }

  private publishArtifact(artifact: Artifact, append: boolean, lastChunk: boolean): void {
    this.bus.publish(AgentEvent.artifactUpdate({ taskId: this.taskId, contextId: this.contextId, artifact, append, lastChunk, metadata: undefined }));
  }

  private publishPending(): void {
    clearTimeout(this.publishTimer);
    const task = this.pending;
    this.pending = undefined;
    if (task) this.bus.publish(AgentEvent.task(task));
  }

  private statusOf(state: TaskState, parts?: Part[]): TaskStatus {
    return { state, timestamp: new Date().toISOString(), message: parts ? this.agentMessage(parts) : undefined };
  }

  private agentMessage(parts: Part[]): Message {
    return { messageId: randomUUID(), contextId: this.contextId, taskId: this.taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
  }
}

/**
 * What the SDK's ResultManager makes of an artifact update — parts appended to the artifact of that
 * id, or the artifact set — with appended text joined to the text before it: the reply of a blocking
 * send is one text part, not one per delta (issue 32, item 6), as the task store keeps it.
 */
function appendArtifact(task: Task, artifact: Artifact, append: boolean): void {
  const existing = task.artifacts.find((a) => a.artifactId === artifact.artifactId);
  if (existing && append) {
    existing.parts = joinText([...existing.parts, ...artifact.parts]);
    if (artifact.name) existing.name = artifact.name;
  } else if (existing) task.artifacts[task.artifacts.indexOf(existing)] = artifact;
  else task.artifacts.push(artifact);
}
