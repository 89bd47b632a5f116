import type { IncomingHttpHeaders } from 'node:http';
import { NEWS_GUARD, SESSION_ID_HEADER } from '../../restap.constants';
import type { NewsItem } from '../../interfaces/news.interface';
import type { TalkContext, TalkMessage, TalkTurn } from '../../interfaces/talk.interface';

/** What a turn's context is built from. */
export interface TalkContextInit {
  message: string;
  sessionId: string | undefined;
  messageId: string;
  history: TalkTurn[];
  news: NewsItem[];
  signal: AbortSignal;
  headers: IncomingHttpHeaders;
  systemPrompt?: string;
}

/** Builds the frozen `TalkContext` handed to the `@Talk()` handler. */
export function createTalkContext(init: TalkContextInit): TalkContext {
  const history = Object.freeze(init.history.map((turn) => Object.freeze({ ...turn })));
  const news = Object.freeze([...init.news]);
  return Object.freeze({
    message: init.message,
    sessionId: init.sessionId,
    messageId: init.messageId,
    history,
    news,
    signal: init.signal,
    headers: Object.freeze(withoutSessionHeader(init.headers)),
    toMessages: () => toMessages(init.systemPrompt, news, history, init.message),
  });
}

/** The session_id is a secret with its own field: keep it out of headers a handler might log. */
function withoutSessionHeader(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { [SESSION_ID_HEADER]: _secret, ...rest } = headers;
  return rest;
}

/**
 * System prompt, then each news item as a system message behind the spec's informational-only
 * guard (so the model absorbs it without answering it), then history, then the new message.
 * Turns with no content (a failed reply) are left out.
 */
export function toMessages(systemPrompt: string | undefined, news: readonly NewsItem[], history: readonly TalkTurn[], message: string): TalkMessage[] {
  const messages: TalkMessage[] = [];
  if (systemPrompt) messages.push({ role: 'system', content: systemPrompt });
  for (const item of news) messages.push({ role: 'system', content: `${NEWS_GUARD}\n${JSON.stringify(item)}` });
  for (const turn of history) if (turn.content) messages.push({ role: turn.role, content: turn.content });
  messages.push({ role: 'user', content: message });
  return messages;
}
