import { assertCapabilityOptionKeys } from './capability-options.check';
import type { CapabilityOptions } from '../../interfaces/capability-options.interface';

describe('assertCapabilityOptionKeys: task (issue 38, item 8)', () => {
  const check = (options: Record<string, unknown>) => () => assertCapabilityOptionKeys({ id: 'jobs.slow', title: 'Slow', ...options } as CapabilityOptions, 'JobsController.slow');

  it('task: true and task: false are options, not catalog extras', () => {
    expect(check({ task: true })).not.toThrow();
    expect(check({ task: false })).not.toThrow();
  });

  it('a task that is not a boolean stops startup and says what it must be', () => {
    expect(check({ task: 'yes' })).toThrow("@Capability({ id: 'jobs.slow' }) on JobsController.slow: task must be true or false, got string.");
  });

  it('a misspelt task is caught as an unknown option', () => {
    expect(check({ tasks: true })).toThrow("unknown option 'tasks' (did you mean 'task'?)");
  });
});
