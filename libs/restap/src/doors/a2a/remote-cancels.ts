import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { RestapSql, statement } from '../../persistence/restap-sql';
import { hashSessionId } from '../../sessions/session-id';
import { a2aCallerOf } from './a2a-task.store';
import { requestStateOf } from './a2a-request.state';
import { A2aAgentExecutor } from './a2a-agent.executor';

/** Flags a task the caller may read, while some instance runs it. */
const REQUEST = statement(`
  UPDATE restap_a2a_tasks SET cancel_requested = true
  WHERE id = $1 AND (owner_hash = $2 OR context_hash = $3) AND runner IS NOT NULL
  RETURNING id`);

/** Which of the tasks running here another instance asked to cancel. */
const REQUESTED = statement(`SELECT id FROM restap_a2a_tasks WHERE id = ANY($1::text[]) AND cancel_requested`);

/** How often an instance running tasks looks for cancel requests from the others, ms. */
export const REMOTE_CANCEL_POLL_MS = 250;

/**
 * Cancel across replicas. The SDK's event bus lives in the process running a task, so a cancel
 * reaching another instance cannot stop the turn itself: it flags the task's row instead, and the
 * instance running it — which looks for flags on its running tasks every
 * {@link REMOTE_CANCEL_POLL_MS} (one indexed statement, none while it runs nothing) — stops the
 * turn as a local cancel would, storing `canceled`.
 */
@Injectable()
export class RemoteCancels implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly sql: RestapSql,
    private readonly executor: A2aAgentExecutor,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.a2a.enabled) return;
    this.timer = setInterval(() => void this.poll(), REMOTE_CANCEL_POLL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Flags the task for its runner; false when the caller may not read it or nothing runs it. */
  async request(taskId: string, context: ServerCallContext): Promise<boolean> {
    const caller = a2aCallerOf(context);
    const named = requestStateOf(context).contextId ?? caller.contextHint;
    const rows = await this.sql.query(REQUEST, [taskId, caller.ownerHash, typeof named === 'string' ? hashSessionId(named) : null]);
    return rows.length > 0;
  }

  private async poll(): Promise<void> {
    const ids = this.executor.runningTaskIds();
    if (!ids.length || this.polling) return;
    this.polling = true;
    try {
      for (const { id } of await this.sql.query<{ id: string }>(REQUESTED, [ids])) void this.executor.cancelTask(id);
    } catch (error) {
      this.logger.warn(`A2A: could not read cancel requests: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      this.polling = false;
    }
  }
}
