import { getMaxListeners } from 'node:events';
import { DefaultExecutionEventBusManager } from '@a2a-js/sdk/server';
import { StreamListenerBusManager } from './stream-listener.bus';

describe('StreamListenerBusManager (issue 32, item 5)', () => {
  it('a task\'s bus takes as many subscribers as streams may be open: no MaxListenersExceededWarning past 10', () => {
    // The SDK's own buses warn past 10 listeners, as Node's EventTarget does by default.
    expect(getMaxListeners(new DefaultExecutionEventBusManager().createOrGetByTaskId('task-0') as unknown as EventTarget)).toBe(10);
    const bus = new StreamListenerBusManager(5_010).createOrGetByTaskId('task-1');
    expect(getMaxListeners(bus as unknown as EventTarget)).toBe(5_010);
  });

  it('every caller shares one scope: the task store, not the bus, decides who may see a task', () => {
    const manager = new StreamListenerBusManager(20);
    const bus = manager.createOrGetByTaskId('task-2');
    expect(manager.getByTaskId('task-2')).toBe(bus);
  });
});
