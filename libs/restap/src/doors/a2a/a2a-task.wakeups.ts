import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { NewsWakeups } from '../../core/news/news-wakeups';
import { TaskWakeups } from '../../core/tasks/task-wakeups';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { A2aDoorOptions } from './a2a.options';

/** The NOTIFY channel of A2A task wake-ups. */
export const A2A_CHANNEL = 'restap_a2a';

/**
 * How often a waiter re-reads storage while no LISTEN connection carries wake-ups (the embedded
 * database, `news.wakeups: 'in-process'`, or the connection down and reconnecting), ms: the
 * polling the door did before it had wake-ups.
 */
export const FALLBACK_POLL_MS = 250;

/**
 * Wake-ups of the A2A door's tasks (issue 38, item 5), on the channel {@link A2A_CHANNEL}: the
 * instance that wrote a task sends `written`, so a subscription following it through storage, a
 * cancel waiting for the runner's confirmation, and the runner's check for cancel requests wait on
 * these instead of reading PostgreSQL every 200–250 ms (see TaskWakeups).
 */
@Injectable()
export class A2aTaskWakeups extends TaskWakeups implements OnModuleInit {
  constructor(
    wakeups: NewsWakeups,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
  ) {
    super(wakeups, A2A_CHANNEL, FALLBACK_POLL_MS, 't');
  }

  onModuleInit(): void {
    if (this.options.a2a.enabled) this.listen();
  }
}
