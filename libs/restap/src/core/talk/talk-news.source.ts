import type { NewsItem } from '../../interfaces/news.interface';

/**
 * Injection token of the optional provider that picks the news a /talk turn should see. When no
 * provider is registered, `ctx.news` is an empty list.
 */
export const RESTAP_TALK_NEWS_SOURCE = Symbol('RESTAP_TALK_NEWS_SOURCE');

/**
 * Supplies `ctx.news` for a /talk turn.
 *
 * @example
 * { provide: RESTAP_TALK_NEWS_SOURCE, useExisting: NewsService } // with forTalk(sessionId)
 */
export interface TalkNewsSource {
  /**
   * News for the turn, oldest first; `sessionId` is undefined when sessions are off or absent.
   * `maxChars` (`talk.contextBudget.itemChars`): items longer than that may come cut.
   */
  forTalk(sessionId: string | undefined, options?: { maxChars?: number }): Promise<NewsItem[]>;
}
