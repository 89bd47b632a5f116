import type { Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext } from '@a2a-js/sdk/server';

/** A task running on this instance: its latest state, and the write of it in flight (see A2aTaskStore). */
export interface LiveTask {
  id: string;
  ownerHash: Buffer;
  contextHash: Buffer;
  box: Buffer | null;
  state: TaskState;
  task: Task;
  written: Promise<void>;
  flushTimer?: NodeJS.Timeout;
}

/** A final task written with its turn (see A2aTaskStore.sideRow): the task and its stored document. */
export interface TurnRow {
  entry: LiveTask;
  document: string;
  committed: boolean;
}

/**
 * What the door's request handler, its executor and its task store know of one A2A request, in
 * one typed object. The SDK hands them the request's ServerCallContext only, whose `state` map is
 * its one place for such things: this object is the door's single entry there (see requestStateOf).
 */
export class A2aRequestState {
  /**
   * A blocking SendMessage (set by ReplicaAwareRequestHandler): its caller learns the id of a new
   * task from the answer only, sent once the task is final (or interrupted) and written, so the
   * task may be published once, when it ends (see TaskEvents).
   */
  blockingSend = false;
  /** A SendMessage, blocking or not: no one streams its events, so its text deltas may go out together (see TaskEvents). */
  unarySend = false;
  /** The context id of the turn the executor runs: the task store puts it back into what it loads. */
  contextId?: string;
  /** The task id the SDK drew for this request (a message without taskId): nothing of it is stored until its first save. */
  newTaskId?: string;
  /** A task this request saved in a final state: it changes no more, so later loads in the request need no statement. */
  finalTask?: LiveTask;
  /** The final task written into the statement of the turn that ended it (see A2aTaskStore.sideRow). */
  turnRow?: TurnRow;
}

const STATE_KEY = 'restap.a2a.request';

/** The request's A2aRequestState, made on first use. */
export function requestStateOf(context: ServerCallContext): A2aRequestState {
  let state = context.state.get(STATE_KEY) as A2aRequestState | undefined;
  if (!state) context.state.set(STATE_KEY, (state = new A2aRequestState()));
  return state;
}
