import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { RestapRegistry, RegisteredHandler } from '../registry/restap.registry';
import type { NewsItem } from '../../interfaces/news.interface';
import type { NewsHandlerContext } from './news-handler.context';

/** Longest wait at shutdown for handlers still running, ms. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * Hands committed items to the `@News()` handlers. Called only after the item's row is committed;
 * it never delays or changes the acknowledgement: return values are ignored and errors are logged
 * (class, method, news id and message, with the session id masked), never rethrown.
 */
@Injectable()
export class NewsDispatcher implements BeforeApplicationShutdown {
  private readonly logger = new Logger('RestapNews');
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly registry: RestapRegistry) {}

  /** False when no `@News()` handler is registered: then there is no item to build. */
  get hasHandlers(): boolean {
    return this.registry.getNewsHandlers().length > 0;
  }

  /** Starts every handler on its own copy of the item; resolves when all have settled. */
  dispatch(item: NewsItem, context: NewsHandlerContext): Promise<void> {
    const runs = this.registry.getNewsHandlers().map((handler) => this.track(this.run(handler, item, context)));
    return Promise.all(runs).then(() => undefined);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running.size) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
  }

  private async run(handler: RegisteredHandler, item: NewsItem, context: NewsHandlerContext): Promise<void> {
    // Let the acknowledgement go out first: handlers run after it, on the next turn of the loop.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      await handler.invoke(structuredClone(item), { ...context });
    } catch (error) {
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const masked = context.sessionId ? text.split(context.sessionId).join('[session_id]') : text;
      this.logger.error(`@News() handler ${handler.className}.${handler.methodName} failed on ${item.news_id}: ${masked}`);
    }
  }

  private track(promise: Promise<void>): Promise<void> {
    this.running.add(promise);
    return promise.finally(() => this.running.delete(promise));
  }
}
