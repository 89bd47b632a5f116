import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { RestapSql, statement } from '../../persistence/restap-sql';
import { a2aCallerOf } from './a2a-task.store';
import { storableId } from './a2a-request.check';
import { webhookProblem } from './push-webhook.guard';

/** The wire version the SDK's sender shapes a delivery for (its ProtocolVersion values). */
const LEGACY_VERSION = '0.3';

const SAVE = statement(`
  INSERT INTO restap_a2a_push_configs (task_id, owner_hash, id, wire_version, config)
  SELECT $1, $2, $3, $4, $5::json
  WHERE (SELECT count(*) FROM restap_a2a_push_configs WHERE task_id = $1 AND owner_hash = $2 AND id <> $3) < $6
  ON CONFLICT (task_id, owner_hash, id) DO UPDATE SET wire_version = EXCLUDED.wire_version, config = EXCLUDED.config
  RETURNING id`, 'a2a.push-save');
const LOAD = statement(`
  SELECT config, wire_version FROM restap_a2a_push_configs WHERE task_id = $1 AND owner_hash = $2 ORDER BY created_at, id`, 'a2a.push-load');
const DELETE_ONE = statement(`DELETE FROM restap_a2a_push_configs WHERE task_id = $1 AND owner_hash = $2 AND id = $3`, 'a2a.push-delete');
const DELETE_ALL = statement(`DELETE FROM restap_a2a_push_configs WHERE task_id = $1 AND owner_hash = $2`, 'a2a.push-delete-all');

interface ConfigRow {
  config: unknown;
  wire_version: string;
}

/**
 * The SDK's `PushNotificationStore` on the module's PostgreSQL (restap_a2a_push_configs): a
 * webhook registered on any replica is delivered by whichever replica runs the task, and survives
 * a restart. Scoped by owner (the SHA-256 of the caller's identity, as tasks are; the SDK checks
 * the caller may read the task before it asks). Every URL passes the SSRF check
 * ({@link webhookProblem}) before it is stored: a refused one is JSON-RPC -32602 / HTTP 400.
 */
@Injectable()
export class A2aPushStore implements PushNotificationStore {
  private readonly logger = new Logger('Restap');

  constructor(
    private readonly sql: RestapSql,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
  ) {}

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    const push = this.policy();
    if (!storableId(taskId) || (config.id && !storableId(config.id))) throw new RequestMalformedError('The task or config id holds a NUL character.');
    if (!config.url) throw new RequestMalformedError('A push notification config needs a url.');
    const problem = await webhookProblem(config.url, push);
    if (problem) throw new RequestMalformedError(problem);
    // The SDK reads the id from the object it passed (the result of Create).
    if (!config.id) config.id = randomUUID();
    config.taskId = taskId;
    const version = context.requestedVersion || LEGACY_VERSION;
    const json = JSON.stringify(TaskPushNotificationConfig.toJSON(config));
    const rows = await this.sql.query<{ id: string }>(SAVE, [taskId, a2aCallerOf(context).ownerHash, config.id, version, json, push.maxConfigsPerTask]);
    if (!rows.length) throw new RequestMalformedError(`A task has at most ${push.maxConfigsPerTask} push notification configs: delete one first.`);
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (await this.loadWithMetadata(taskId, context)).map((stored) => stored.config);
  }

  async loadWithMetadata(taskId: string, context: ServerCallContext): Promise<Array<{ config: TaskPushNotificationConfig; wireVersion: string }>> {
    if (!storableId(taskId)) return [];
    const rows = await this.sql.query<ConfigRow>(LOAD, [taskId, a2aCallerOf(context).ownerHash]);
    return rows.map((row) => ({ config: TaskPushNotificationConfig.fromJSON(row.config), wireVersion: row.wire_version }));
  }

  async delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    if (!storableId(taskId) || (configId && !storableId(configId))) return;
    const owner = a2aCallerOf(context).ownerHash;
    if (configId) await this.sql.query(DELETE_ONE, [taskId, owner, configId]);
    else await this.sql.query(DELETE_ALL, [taskId, owner]);
  }

  /**
   * The configs the sender may deliver to now: each URL checked again (a name may have come to
   * resolve to a private address since it was stored); a refused one is skipped with a warning.
   */
  async deliverable(taskId: string, context: ServerCallContext): Promise<Array<{ config: TaskPushNotificationConfig; wireVersion: string }>> {
    const stored = await this.loadWithMetadata(taskId, context);
    const push = this.policy();
    const checked = await Promise.all(stored.map(async (entry) => ({ entry, problem: await webhookProblem(entry.config.url, push) })));
    for (const { problem } of checked) if (problem) this.logger.warn(`A2A: a push notification of a task was not sent: ${problem}`);
    return checked.filter((c) => !c.problem).map((c) => c.entry);
  }

  private policy() {
    const push = this.options.a2a.pushNotifications;
    if (!push) throw new RequestMalformedError('Push notifications are off.');
    return push;
  }
}
