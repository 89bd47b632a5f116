import { Injectable, OnModuleInit } from '@nestjs/common';
import { NewsWakeups } from '../news/news-wakeups';
import { RestapRegistry } from '../registry/restap.registry';
import { RestapExplorer } from '../registry/restap.explorer';
import { TaskWakeups } from './task-wakeups';

/** The NOTIFY channel of capability task wake-ups. */
export const CAPABILITY_TASKS_CHANNEL = 'restap_tasks';

/**
 * How often a waiter re-reads storage while no LISTEN connection carries wake-ups (the embedded
 * database, `news.wakeups: 'in-process'`, or the connection down and reconnecting), ms: the polling
 * capability tasks did before they had wake-ups.
 */
export const TASK_FALLBACK_POLL_MS = 250;

/**
 * Wake-ups of capability tasks (`@Capability({ task: true })`, issue 38 item 5), on the channel
 * {@link CAPABILITY_TASKS_CHANNEL}: the instance that stored a task's end sends `written`, so an MCP
 * `tasks/result` or a cancel waiting on another replica reads it at once (see TaskWakeups).
 */
@Injectable()
export class CapabilityTaskWakeups extends TaskWakeups implements OnModuleInit {
  constructor(
    wakeups: NewsWakeups,
    private readonly registry: RestapRegistry,
    // Not used: injected so this runs its onModuleInit after the explorer filled the registry.
    _explorer: RestapExplorer,
  ) {
    super(wakeups, CAPABILITY_TASKS_CHANNEL, TASK_FALLBACK_POLL_MS, 'e');
  }

  /** Only when some capability may run as a task: an app without one opens no connection for it. */
  onModuleInit(): void {
    if (this.registry.getCapabilities().some((capability) => capability.options.task === true)) this.listen();
  }
}
