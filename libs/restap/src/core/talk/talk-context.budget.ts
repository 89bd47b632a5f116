import { NEWS_GUARD } from '../../restap.constants';
import type { RestapContextBudget } from '../../interfaces/restap-options.interface';
import type { NewsItem } from '../../interfaces/news.interface';
import type { TalkTurn } from '../../interfaces/talk.interface';
import type { StoredNews } from '../../persistence/news.store';
import { newsIdOf } from '../news/news-page.writer';
import { keepText, keptText } from '../news/news-item.cache';

/** `talk.contextBudget` defaults (see `RestapContextBudget`). */
export const DEFAULT_CONTEXT_BUDGET: Required<RestapContextBudget> = { totalChars: 64_000, itemChars: 8_000 };

/** Appended, for the model, to an assistant reply that did not complete (client left, error, shutdown). */
export const INTERRUPTED_NOTE = '[This reply was interrupted before it was complete: treat it as unfinished, not as said.]';

/** The marker ending a cut text. */
export const cutMarker = (shown: number, total: number): string => ` …[cut: ${total} characters in all, the first ${shown} shown]`;

/** `text` at most `max` characters (UTF-16 units), never ending inside a surrogate pair, plus the marker. */
function cutText(text: string, max: number, total = text.length): string {
  if (text.length <= max && total <= text.length) return text;
  let end = Math.min(max, text.length);
  if (end > 0 && end < text.length && /[\ud800-\udbff]/.test(text[end - 1])) end--;
  return `${text.slice(0, end)}${cutMarker(end, total)}`;
}

/** Items this module built for rows cut in storage (a sender's own `truncated` field is never taken for one). */
const CUT_ITEMS = new WeakSet<object>();

/** The preview a cut item carries. */
interface Truncated {
  chars: number;
  preview: string;
}

/**
 * What `ctx.news` holds for a stored item longer than `talk.contextBudget.itemChars`: its type,
 * timestamp and id, and the beginning of its JSON (`truncated.preview`, `truncated.chars` in all).
 */
export function cutNewsItem(row: StoredNews & { cut: NonNullable<StoredNews['cut']> }): NewsItem {
  const truncated: Truncated = Object.freeze({ chars: row.cut.chars, preview: row.body });
  const item: NewsItem = Object.freeze({ type: row.cut.type, timestamp: row.ts, news_id: newsIdOf(row.id), truncated });
  CUT_ITEMS.add(item);
  return item;
}

/**
 * One news item as the model reads it after the guard: its JSON, cut to `itemChars` with a
 * marker. Undefined when it cannot be rendered (a cyclic or too deeply nested object from a custom
 * news source): the caller leaves it out rather than fail the turn.
 */
export function newsText(item: NewsItem, itemChars: number): string | undefined {
  // A stored item's text is kept with it by the news cache, which hands every turn the same frozen
  // item: without this, each turn stringified each of its items again (issue 19: with 20 items in
  // the feed, a /talk turn cost twice the CPU of one with none).
  const kept = keptText(item, itemChars);
  if (kept !== undefined) return kept;
  if (CUT_ITEMS.has(item)) {
    const { chars, preview } = item.truncated as Truncated;
    return cutText(preview, itemChars, chars);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(item);
  } catch {
    return undefined;
  }
  if (typeof json !== 'string') return undefined;
  const text = cutText(json, itemChars);
  keepText(item, itemChars, text);
  return text;
}

/** A history turn within `itemChars`: its content cut with a marker (in storage, or here). */
function fitTurn(turn: TalkTurn, itemChars: number): TalkTurn {
  if (turn.fullLength !== undefined) return { ...turn, content: cutText(turn.content, itemChars, turn.fullLength) };
  if (turn.content.length <= itemChars) return turn;
  return { ...turn, content: cutText(turn.content, itemChars), fullLength: turn.content.length };
}

/**
 * One history turn as the model reads it: an unfinished reply says so, and a reply its instance
 * died before it began is that note alone. Empty when there is nothing to say.
 */
export function turnText(turn: TalkTurn): string {
  if (!turn.content) return turn.role === 'assistant' && turn.status === 'interrupted' ? INTERRUPTED_NOTE : '';
  return turn.role === 'assistant' && turn.status !== 'complete' ? `${turn.content}\n\n${INTERRUPTED_NOTE}` : turn.content;
}

/** What a turn's tool steps add to the prompt: each call's name, arguments and result. */
function toolStepsChars(turn: TalkTurn): number {
  let chars = 0;
  for (const step of turn.toolSteps ?? []) for (const c of step.calls) chars += c.name.length + c.arguments.length + c.result.length;
  return chars;
}

/** A turn's context within its budget. Its news arrays are frozen, and may be shared between turns. */
export interface FittedContext {
  news: readonly NewsItem[];
  /** `newsText()` of each of `news`. */
  newsTexts: readonly string[];
  history: readonly TalkTurn[];
}

/** News fitted into a budget: what is kept of it, and the characters that takes. */
interface NewsFit {
  news: readonly NewsItem[];
  newsTexts: readonly string[];
  used: number;
}

/**
 * The last news fitted whose every item came from the news cache (deeply frozen: its text never
 * changes), with what it was fitted from. Turns read the same newest items of a feed until a new
 * one is posted; such a turn, at the same budget, takes this fit as it is.
 */
let lastNewsFit: (NewsFit & { from: readonly NewsItem[]; itemChars: number; totalChars: number }) | undefined;

/**
 * Fits news and history into `budget`, newest first: each item or message cut to `itemChars`,
 * news within half of `totalChars`, history within the rest; what is older than the first item
 * that does not fit is left out. `onSkip` hears of items that cannot be rendered at all.
 */
export function fitContext(
  news: readonly NewsItem[],
  history: readonly TalkTurn[],
  budget: Required<RestapContextBudget>,
  onSkip?: (item: NewsItem) => void,
): FittedContext {
  const { totalChars, itemChars } = budget;
  const fit = fitNews(news, itemChars, totalChars, onSkip);
  let used = fit.used;
  const keptHistory: TalkTurn[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = fitTurn(history[i], itemChars);
    const size = turnText(turn).length + toolStepsChars(turn);
    if (used + size > totalChars) break;
    used += size;
    keptHistory.push(turn);
  }
  return { news: fit.news, newsTexts: fit.newsTexts, history: keptHistory.reverse() };
}

const NO_NEWS: NewsFit = Object.freeze({ news: Object.freeze([]), newsTexts: Object.freeze([]), used: 0 });

function fitNews(news: readonly NewsItem[], itemChars: number, totalChars: number, onSkip?: (item: NewsItem) => void): NewsFit {
  if (!news.length) return NO_NEWS;
  const last = lastNewsFit;
  if (last && last.itemChars === itemChars && last.totalChars === totalChars && sameItems(last.from, news)) return last;
  const kept: NewsItem[] = [];
  const texts: string[] = [];
  let used = 0;
  let cached = true;
  for (let i = news.length - 1; i >= 0; i--) {
    let text = keptText(news[i], itemChars);
    if (text === undefined) {
      cached = false;
      text = newsText(news[i], itemChars);
      if (text === undefined) {
        onSkip?.(news[i]);
        continue;
      }
    }
    const size = NEWS_GUARD.length + 1 + text.length;
    if (used + size > totalChars / 2) break;
    used += size;
    kept.push(news[i]);
    texts.push(text);
  }
  const fit: NewsFit = { news: Object.freeze(kept.reverse()), newsTexts: Object.freeze(texts.reverse()), used };
  if (cached) lastNewsFit = { ...fit, from: Object.freeze(news.slice()), itemChars, totalChars };
  return fit;
}

/** Whether two lists hold the same objects, in the same order. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
