import { Injectable } from '@nestjs/common';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { NEWS_URI } from './mcp-news';

/**
 * Tells open `subscriptions/listen` streams (2026-07-28 clients) that the news resource changed,
 * through the handler's notifier: each stream that listed `restap://news` gets
 * `notifications/resources/updated` and re-reads it (its own feed: the read is scoped by the
 * reader's session, so the ping names no item and no session).
 */
@Injectable()
export class McpNewsNotifier {
  private handler?: McpHttpHandler;

  attach(handler: McpHttpHandler): void {
    this.handler = handler;
  }

  /** An item was committed. */
  committed(): void {
    this.handler?.notify.resourceUpdated(NEWS_URI);
  }
}
