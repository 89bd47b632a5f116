import { Logger } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { NEWS_GUARD, SESSION_ID_HEADER } from '../../restap.constants';
import type { RestapContextBudget } from '../../interfaces/restap-options.interface';
import type { NewsItem } from '../../interfaces/news.interface';
import type { TalkContext, TalkMessage, TalkTools, TalkToolStep, TalkTurn } from '../../interfaces/talk.interface';
import { DEFAULT_CONTEXT_BUDGET, fitContext, turnText, type FittedContext } from './talk-context.budget';

const logger = new Logger('Restap');

/** What a turn's context is built from. */
export interface TalkContextInit {
  /** The user's message; absent in a turn that continues without one (client tool results, an approval answer). */
  message?: string;
  sessionId: string | undefined;
  messageId: string;
  history: readonly TalkTurn[];
  news: readonly NewsItem[];
  /** Holds `ctx.signal`, read when the handler first asks for it (most handlers never do): the turn's TalkRun. */
  signals: { readonly signal: AbortSignal };
  headers: IncomingHttpHeaders;
  systemPrompt?: string;
  /** Size bounds of news and history (`talk.contextBudget`). @default DEFAULT_CONTEXT_BUDGET */
  budget?: Required<RestapContextBudget>;
  /** `ctx.tools`; none offered when absent. */
  tools?: TalkTools;
  /**
   * Tool steps run for this turn before its handler (an approved call, issue 35): `toMessages()`
   * puts them after the user's message, as if the model had made them. Read when called.
   */
  answered?: readonly TalkToolStep[];
}

/** `ctx.tools` of a context built without tools: nothing listed, every call answered unknown_tool. */
const NO_TOOLS: TalkTools = Object.freeze({
  list: Object.freeze([]),
  call: async (name: string, _args: unknown, options: { id?: string } = {}) => {
    const message = `There is no tool named '${name}': no tools are offered.`;
    return { ok: false as const, status: 404, error: 'unknown_tool', message, id: options.id ?? 'call_none', content: `Error 404 unknown_tool: ${message}` };
  },
});

/**
 * Builds the frozen `TalkContext` handed to the `@Talk()` handler: news and history fitted into
 * the budget first, so `ctx.news`, `ctx.history` and `ctx.toMessages()` all hold what the turn
 * carries and no more.
 */
export function createTalkContext(init: TalkContextInit): TalkContext {
  // A new session's turn with no news (the common first turn) has nothing to fit or copy.
  const fitted = init.news.length || init.history.length ? fitContext(init.news, init.history, init.budget ?? DEFAULT_CONTEXT_BUDGET, warnUnrenderable) : NOTHING_FITTED;
  const history = fitted.history.length ? Object.freeze(fitted.history.map(freezeTurn)) : NONE;
  const shown = history === fitted.history ? fitted : { ...fitted, history };
  return new TurnContext(init, shown, () => messagesOf(init.systemPrompt, shown, init.message, init.answered));
}

/**
 * One turn's context. `signal` and `headers` are made when the handler first reads them, through
 * getters of this class. Not getters of an object literal: each such literal gets a hidden class of
 * its own, made in V8's old generation, whose getters hold the turn, so every turn's objects would
 * outlive the young generation's collections until the next full one.
 */
class TurnContext implements TalkContext {
  readonly message: string;
  readonly sessionId: string | undefined;
  readonly messageId: string;
  readonly history: readonly TalkTurn[];
  readonly news: readonly NewsItem[];
  readonly tools: TalkTools;
  readonly toMessages: () => TalkMessage[];
  /** What the context was built from: the signal's holder and the request's headers. */
  readonly #init: TalkContextInit;
  /** The headers' copy without the session header, once read. */
  #headers?: Readonly<IncomingHttpHeaders>;

  constructor(init: TalkContextInit, fitted: FittedContext, toMessages: () => TalkMessage[]) {
    this.message = init.message ?? '';
    this.sessionId = init.sessionId;
    this.messageId = init.messageId;
    this.history = fitted.history;
    this.news = fitted.news.length ? fitted.news : NONE;
    this.tools = init.tools ?? NO_TOOLS;
    this.toMessages = toMessages;
    this.#init = init;
    Object.freeze(this);
  }

  get signal(): AbortSignal {
    return this.#init.signals.signal;
  }

  /** Copied (without the session header) when the handler first reads them. */
  get headers(): Readonly<IncomingHttpHeaders> {
    return (this.#headers ??= Object.freeze(withoutSessionHeader(this.#init.headers)));
  }
}

/** The empty `ctx.news` / `ctx.history`, frozen once and shared. */
export const NONE: readonly never[] = Object.freeze([]);
const NOTHING_FITTED: FittedContext = Object.freeze({ news: NONE, newsTexts: NONE, history: NONE });

function warnUnrenderable(item: NewsItem): void {
  logger.warn(`News item ${typeof item.news_id === 'string' ? item.news_id : '(no id)'} left out of a /talk turn: it cannot be rendered as JSON`);
}

/** A history turn frozen down to its tool steps. */
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
 * News and history are fitted into `budget` first (see `fitContext`). An assistant turn's tool
 * steps come first, each as an assistant message with `tool_calls` and a `tool` message per call,
 * so the model knows what it did. Turns with no content (a failed reply) are otherwise left out;
 * a reply that did not complete is marked as interrupted.
 */
export function toMessages(
  systemPrompt: string | undefined,
  news: readonly NewsItem[],
  history: readonly TalkTurn[],
  message: string,
  budget: Required<RestapContextBudget> = DEFAULT_CONTEXT_BUDGET,
): TalkMessage[] {
  return messagesOf(systemPrompt, fitContext(news, history, budget), message);
}

function messagesOf(systemPrompt: string | undefined, fitted: FittedContext, message: string | undefined, answered: readonly TalkToolStep[] = NONE): TalkMessage[] {
  const messages: TalkMessage[] = [];
  if (systemPrompt) messages.push({ role: 'system', content: systemPrompt });
  for (const text of fitted.newsTexts) messages.push({ role: 'system', content: `${NEWS_GUARD}\n${text}` });
  const later = answeredLater(fitted.history, answered);
  for (const turn of fitted.history) {
    pushSteps(messages, turn.toolSteps ?? NONE, later);
    const content = turnText(turn);
    if (content) messages.push({ role: turn.role, content });
  }
  if (message !== undefined) messages.push({ role: 'user', content: message });
  pushSteps(messages, answered, later);
  return messages;
}

/**
 * Ids of the client calls handed over (`pending`) in one turn and answered by a later one: they
 * show once, where their result came, never twice under one id. Empty (and nothing scanned past
 * the check) for a conversation without a client call.
 */
function answeredLater(history: readonly TalkTurn[], answered: readonly TalkToolStep[]): ReadonlySet<string> {
  let handed: Set<string> | undefined;
  for (const turn of history) for (const step of turn.toolSteps ?? NONE) for (const c of step.calls) if (c.pending) (handed ??= new Set()).add(c.id);
  if (!handed) return NO_IDS;
  const later = new Set<string>();
  const note = (steps: readonly TalkToolStep[]): void => {
    for (const step of steps) for (const c of step.calls) if (!c.pending && handed!.has(c.id)) later.add(c.id);
  };
  for (const turn of history) note(turn.toolSteps ?? NONE);
  note(answered);
  return later;
}

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * Each step as an assistant message with `tool_calls`, then a `tool` message per call; a client
 * call answered later is left to the step that carries its result.
 */
function pushSteps(messages: TalkMessage[], steps: readonly TalkToolStep[], later: ReadonlySet<string>): void {
  for (const step of steps) {
    const calls = later.size ? step.calls.filter((c) => !(c.pending && later.has(c.id))) : step.calls;
    if (!calls.length) continue;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: c.result });
  }
}
