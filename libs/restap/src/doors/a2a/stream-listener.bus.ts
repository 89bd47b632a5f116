import { setMaxListeners } from 'node:events';
import { DefaultExecutionEventBusManager, type ExecutionEventBus, type ServerCallContext } from '@a2a-js/sdk/server';

/**
 * The SDK's event-bus manager with one scope for every caller (the task store decides who may see
 * a task, before any bus is used), whose buses take as many listeners as streams may be open.
 * Every `SubscribeToTask` stream on a task adds its listeners to the task's bus; Node warns past
 * 10 per event target (`MaxListenersExceededWarning`) as if they leaked, but here the door's stream
 * caps (`talk.maxStreams`) are what bound them: past that number a warning still means a leak.
 */
export class StreamListenerBusManager extends DefaultExecutionEventBusManager {
  /** `maxStreams`: the streams that may be open on this instance (each adds one listener per event). */
  constructor(private readonly maxListeners: number) {
    super(() => '');
  }

  override createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
    const bus = super.createOrGetByTaskId(taskId, context);
    setMaxListeners(this.maxListeners, bus as unknown as EventTarget);
    return bus;
  }
}
