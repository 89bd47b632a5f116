/**
 * Second argument of a `@News()` handler: where the item came from. There is deliberately nothing
 * to reply with.
 *
 * @example
 * @News()
 * remember(item: NewsItem, { sessionId }: NewsHandlerContext): void { this.memory.add(sessionId, item); }
 */
export interface NewsHandlerContext {
  /** The session the item was posted with, if any. A bearer secret: never log it. */
  sessionId?: string;
}
