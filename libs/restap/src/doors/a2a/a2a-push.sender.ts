import { Logger } from '@nestjs/common';
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { PushNotificationSender, PushNotificationStore } from '@a2a-js/sdk/server';
import type * as A2aLegacy from '@a2a-js/sdk/compat/v0_3/server';
import { setTimeout as sleep } from 'node:timers/promises';
import type { A2aPushStore } from './a2a-push.store';

/** The delivery options of `a2a.pushNotifications`. */
export interface PushDeliveryOptions {
  timeoutMs: number;
  retries: number;
  retryBackoffMs: number;
}

/** One delivery of the SDK's sender (1.3.0: `DefaultPushNotificationSender._dispatchNotification`). */
type Dispatch = (streamResponse: StreamResponse, stored: unknown, taskId: string, task?: Task) => Promise<void>;

/**
 * Push-notification delivery: the SDK's own sender (`createLegacyAwarePushNotificationSender`, so
 * a webhook registered over 0.3 gets 0.3 bodies), which POSTs each update of a task — its final
 * state included — to every webhook of the task, in order, with the config's `authentication`
 * as `Authorization: <scheme> <credentials>` or its `token` as `X-A2A-Notification-Token`, as the
 * A2A spec has the receiver check. Two things are added around it:
 *
 * - the configs it reads pass the SSRF check again (see A2aPushStore.deliverable);
 * - a failed delivery (network error, timeout, non-2xx) is retried `retries` times with doubling
 *   backoff, so delivery is at least once while the instance lives. The SDK's sender keeps one
 *   update at a time per task, so a retry delays that task's later updates rather than reordering them.
 *
 * It runs on the instance that runs the task (the SDK's request handler sends from the task's
 * event loop), reading the configs from PostgreSQL, so a webhook registered on any replica is served.
 */
export function createPushSender(store: A2aPushStore, options: PushDeliveryOptions): PushNotificationSender {
  const view: PushNotificationStore = {
    save: (taskId, context, config) => store.save(taskId, context, config),
    load: (taskId, context) => store.load(taskId, context),
    loadWithMetadata: (taskId, context) => store.deliverable(taskId, context),
    delete: (taskId, context, configId) => store.delete(taskId, context, configId),
  };
  const sender = legacySdk().createLegacyAwarePushNotificationSender(view, { timeout: options.timeoutMs });
  const internals = sender as unknown as { _dispatchNotification?: Dispatch };
  const dispatch = internals._dispatchNotification?.bind(sender);
  if (typeof dispatch !== 'function') {
    // Another SDK version: its sender delivers once, without our retries.
    new Logger('Restap').warn('A2A: the SDK\'s push sender has no _dispatchNotification: push deliveries are not retried.');
    return sender;
  }
  internals._dispatchNotification = async (streamResponse, stored, taskId, task) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await dispatch(streamResponse, stored, taskId, task);
      } catch (error) {
        if (attempt >= options.retries) throw error;
        await sleep(options.retryBackoffMs * 2 ** attempt);
      }
    }
  };
  return sender;
}

function legacySdk(): typeof A2aLegacy {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the door, as the SDK's Express handlers are
  return require('@a2a-js/sdk/compat/v0_3/server') as typeof A2aLegacy;
}
