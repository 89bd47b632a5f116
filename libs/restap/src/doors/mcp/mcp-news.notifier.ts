import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { NewsWakeups } from '../../core/news/news-wakeups';
import { NEWS_URI } from './mcp-news';
import type { McpLegacySessions } from './mcp-legacy.sessions';

/** After a notification, further commits within this window are told once, at its end. */
const COALESCE_MS = 100;

/**
 * Tells open `subscriptions/listen` streams (2026-07-28 clients), and the 2025-era sessions that
 * subscribed (see McpLegacySessions), that the news resource changed,
 * through the handler's notifier: each stream that listed `restap://news` gets
 * `notifications/resources/updated` and re-reads it (its own feed: the read is scoped by the
 * reader's session, so the ping names no item and no session). The source is `NewsWakeups`,
 * which fires on every replica for every committed item (POST /news, `news_post`, `publish()`, on
 * any instance: LISTEN/NOTIFY on PostgreSQL), so the SDK's in-process event bus needs no sharing:
 * each replica notifies the streams it holds. A burst of commits is told as one notification now
 * and one at the end of the window, so a busy feed cannot flood the streams.
 */
@Injectable()
export class McpNewsNotifier implements OnApplicationShutdown {
  private handler?: McpHttpHandler;
  private timer?: NodeJS.Timeout;
  private pending = false;
  private unsubscribe?: () => void;
  private sessions?: McpLegacySessions;

  constructor(private readonly wakeups: NewsWakeups) {}

  /** `sessions`: the 2025-era sessions (mcp.sessions), told on the same wake-ups. */
  attach(handler: McpHttpHandler, sessions?: McpLegacySessions): void {
    this.handler = handler;
    this.sessions = sessions;
    this.unsubscribe ??= this.wakeups.onCommitted(() => this.committed());
  }

  /** An item was committed. */
  committed(): void {
    if (this.timer) {
      this.pending = true;
      return;
    }
    this.notify();
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private notify(): void {
    this.handler?.notify.resourceUpdated(NEWS_URI);
    if (this.sessions?.holdsSessions) void this.sessions.newsCommitted();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.pending) return;
      this.pending = false;
      this.notify();
    }, COALESCE_MS);
    this.timer.unref();
  }
}
