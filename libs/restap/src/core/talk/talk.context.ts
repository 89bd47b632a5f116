import type { IncomingHttpHeaders } from 'node:http';
import { NEWS_GUARD, SESSION_ID_HEADER } from '../../restap.constants';
import type { NewsItem } from '../../interfaces/news.interface';
import type { TalkContext, TalkMessage, TalkTools, TalkTurn } from '../../interfaces/talk.interface';

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
  /** `ctx.tools`; none offered when absent. */
  tools?: TalkTools;
}

/** `ctx.tools` of a context built without tools: nothing listed, every call answered unknown_tool. */
const NO_TOOLS: TalkTools = Object.freeze({
  list: Object.freeze([]),
  call: async (name: string, _args: unknown, options: { id?: string } = {}) => {
    const message = `There is no tool named '${name}': no tools are offered.`;
    return { ok: false as const, status: 404, error: 'unknown_tool', message, id: options.id ?? 'call_none', content: `Error 404 unknown_tool: ${message}` };
  },
});

/** Builds the frozen `TalkContext` handed to the `@Talk()` handler. */
export function createTalkContext(init: TalkContextInit): TalkContext {
  const history = Object.freeze(init.history.map(freezeTurn));
  const news = Object.freeze([...init.news]);
  return Object.freeze({
    message: init.message,
    sessionId: init.sessionId,
    messageId: init.messageId,
    history,
    news,
    signal: init.signal,
    headers: Object.freeze(withoutSessionHeader(init.headers)),
    tools: init.tools ?? NO_TOOLS,
    toMessages: () => toMessages(init.systemPrompt, news, history, init.message),
  });
}

function freezeTurn(turn: TalkTurn): TalkTurn {
  const steps = turn.toolSteps?.map((step) => Object.freeze({ calls: Object.freeze(step.calls.map((c) => Object.freeze({ ...c }))) }));
  return Object.freeze({ ...turn, ...(steps ? { toolSteps: Object.freeze(steps) } : {}) }) as TalkTurn;
}

/** The session_id is a secret with its own field: keep it out of headers a handler might log. */
function withoutSessionHeader(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { [SESSION_ID_HEADER]: _secret, ...rest } = headers;
  return rest;
}

/**
 * System prompt, then each news item as a system message behind the spec's informational-only
 * guard (so the model absorbs it without answering it), then history, then the new message.
 * An assistant turn's tool steps come first, each as an assistant message with `tool_calls` and
 * a `tool` message per call, so the model knows what it did; turns with no content (a failed
 * reply) are otherwise left out.
 */
export function toMessages(systemPrompt: string | undefined, news: readonly NewsItem[], history: readonly TalkTurn[], message: string): TalkMessage[] {
  const messages: TalkMessage[] = [];
  if (systemPrompt) messages.push({ role: 'system', content: systemPrompt });
  for (const item of news) messages.push({ role: 'system', content: `${NEWS_GUARD}\n${JSON.stringify(item)}` });
  for (const turn of history) {
    for (const step of turn.toolSteps ?? []) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: step.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      for (const c of step.calls) messages.push({ role: 'tool', tool_call_id: c.id, content: c.result });
    }
    if (turn.content) messages.push({ role: turn.role, content: turn.content });
  }
  messages.push({ role: 'user', content: message });
  return messages;
}
