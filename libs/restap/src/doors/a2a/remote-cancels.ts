import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { RestapSql, statement } from '../../persistence/restap-sql';
import { A2A_KIND } from './a2a-task.sql';
import { hashSessionId } from '../../sessions/session-id';
import { a2aCallerOf } from './a2a-task.store';
import { requestStateOf } from './a2a-request.state';
import { A2aAgentExecutor } from './a2a-agent.executor';
import { A2aTaskWakeups, FALLBACK_POLL_MS } from './a2a-task.wakeups';

/** Flags a task the caller may read, while some instance runs it. */
const REQUEST = statement(`
  UPDATE restap_a2a_tasks SET cancel_requested = true
  WHERE id = $1 AND (owner_hash = $2 OR context_hash = $3) AND runner IS NOT NULL AND ${A2A_KIND}
  RETURNING id`);

/** Which of the tasks running here another instance asked to cancel. */
const REQUESTED = statement(`SELECT id FROM restap_a2a_tasks WHERE id = ANY($1::text[]) AND ${A2A_KIND} AND cancel_requested`);

/**
 * Cancel across replicas. The SDK's event bus lives in the process running a task, so a cancel
 * reaching another instance cannot stop the turn itself: it flags the task's row instead and wakes
 * the others (A2aTaskWakeups, LISTEN/NOTIFY); the instance running it reads the flag at once — one
 * indexed statement — and stops the turn as a local cancel would, storing `canceled`.
 *
 * A wake-up can be lost (see A2aTaskWakeups), and the flag is the record: so the instance also
 * reads the flags of all its running tasks at each resync (after a LISTEN reconnection and every
 * `news.resyncMs`), and every {@link FALLBACK_POLL_MS} while no LISTEN connection carries wake-ups
 * (PGlite, `news.wakeups: 'in-process'`, or the connection down). None of it runs while the
 * instance runs no task.
 */
@Injectable()
export class RemoteCancels implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private timer?: NodeJS.Timeout;
  private polling = false;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly sql: RestapSql,
    private readonly executor: A2aAgentExecutor,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
    private readonly wakeups: A2aTaskWakeups,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.a2a.enabled) return;
    this.unsubscribe.push(
      this.wakeups.onCancelRequested((taskId) => {
        if (this.executor.runningTaskIds().includes(taskId)) void this.poll([taskId]);
      }),
      this.wakeupsResync(),
    );
    // The fallback: only while no LISTEN connection carries wake-ups.
    this.timer = setInterval(() => {
      if (!this.wakeups.listening) void this.poll();
    }, FALLBACK_POLL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.unsubscribe.splice(0).forEach((stop) => stop());
  }

  /** Flags the task for its runner; false when the caller may not read it or nothing runs it. */
  async request(taskId: string, context: ServerCallContext): Promise<boolean> {
    const caller = a2aCallerOf(context);
    const named = requestStateOf(context).contextId ?? caller.contextHint;
    const rows = await this.sql.query(REQUEST, [taskId, caller.ownerHash, typeof named === 'string' ? hashSessionId(named) : null]);
    if (rows.length > 0) this.wakeups.cancelRequested(taskId);
    return rows.length > 0;
  }

  /** At each resync (see A2aTaskWakeups): every running task's flag, in case a wake-up was lost. */
  private wakeupsResync(): () => void {
    return this.wakeups.onResync(() => void this.poll());
  }

  /** Reads the cancel flags of `ids` (default: every task running here) and cancels the flagged ones. */
  private async poll(only?: string[]): Promise<void> {
    const ids = only ?? this.executor.runningTaskIds();
    if (!ids.length) return;
    // One sweep of every running task at a time; a wake-up for one task reads it alone, at once.
    const sweep = only === undefined;
    if (sweep && this.polling) return;
    if (sweep) this.polling = true;
    try {
      for (const { id } of await this.sql.query<{ id: string }>(REQUESTED, [ids])) void this.executor.cancelTask(id);
    } catch (error) {
      this.logger.warn(`A2A: could not read cancel requests: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      if (sweep) this.polling = false;
    }
  }
}
