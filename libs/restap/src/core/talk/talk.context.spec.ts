import { NEWS_GUARD } from '../../restap.constants';
import type { NewsItem } from '../../interfaces/news.interface';
import type { TalkTurn } from '../../interfaces/talk.interface';
import { createTalkContext } from './talk.context';
import { cutMarker, INTERRUPTED_NOTE } from './talk-context.budget';

const turn = (role: TalkTurn['role'], content: string, status: TalkTurn['status'] = 'complete'): TalkTurn => ({
  role,
  content,
  status,
  messageId: `msg_${content.length}`,
  createdAt: new Date(0),
});
const news: NewsItem = { type: 'reply', timestamp: 1703012400000, news_id: 'news_1', from: 'agent-b', message: 'Your favorite color is blue.' };

describe('TalkContext.toMessages() (OpenAI-style [{role, content}])', () => {
  const base = { message: 'What is my favorite color?', sessionId: undefined, messageId: 'msg_1', signals: { signal: new AbortController().signal }, headers: {} };

  it('orders system prompt, guarded news (spec, "Surfacing /news to the agent"), history, then the new user message', () => {
    const ctx = createTalkContext({ ...base, systemPrompt: 'Be brief.', news: [news], history: [turn('user', 'Hi'), turn('assistant', 'Hello!')] });
    expect(ctx.toMessages()).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: `${NEWS_GUARD}\n${JSON.stringify(news)}` },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'What is my favorite color?' },
    ]);
  });

  it('without a system prompt, news or history it is just the user message', () => {
    expect(createTalkContext({ ...base, news: [], history: [] }).toMessages()).toEqual([{ role: 'user', content: 'What is my favorite color?' }]);
  });

  it('leaves out turns with no content (a reply that failed before any text)', () => {
    const ctx = createTalkContext({ ...base, news: [], history: [turn('user', 'Hi'), turn('assistant', '', 'error')] });
    expect(ctx.toMessages().map((m) => m.content)).toEqual(['Hi', 'What is my favorite color?']);
  });

  it('replays an earlier turn\'s tool steps in OpenAI format: assistant tool_calls, then a tool message per call', () => {
    const withTools: TalkTurn = {
      ...turn('assistant', 'It is "cba".'),
      toolSteps: [
        {
          calls: [
            { id: 'call_1', name: 'text_reverse', arguments: '{"text":"abc"}', result: '{"reversed_text":"cba"}', ok: true },
            { id: 'call_2', name: 'nope', arguments: '{}', result: 'Error 404 unknown_tool: …', ok: false },
          ],
        },
      ],
    };
    const ctx = createTalkContext({ ...base, news: [], history: [turn('user', 'Reverse abc'), withTools] });
    expect(ctx.toMessages()).toEqual([
      { role: 'user', content: 'Reverse abc' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'text_reverse', arguments: '{"text":"abc"}' } },
          { id: 'call_2', type: 'function', function: { name: 'nope', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"reversed_text":"cba"}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error 404 unknown_tool: …' },
      { role: 'assistant', content: 'It is "cba".' },
      { role: 'user', content: 'What is my favorite color?' },
    ]);
    expect(Object.isFrozen(ctx.history[1].toolSteps![0].calls[0])).toBe(true);
  });

  it('without tools, ctx.tools lists none and a call answers unknown_tool instead of throwing', async () => {
    const ctx = createTalkContext({ ...base, news: [], history: [] });
    expect(ctx.tools.list).toEqual([]);
    await expect(ctx.tools.call('text_reverse', {})).resolves.toMatchObject({ ok: false, status: 404, error: 'unknown_tool' });
  });

  it('keeps the Restap-Session-Id header out of ctx.headers (the id is a secret; ctx.sessionId has it)', () => {
    const ctx = createTalkContext({ ...base, news: [], history: [], headers: { 'restap-session-id': 'secret-secret-secret', 'x-trace': 'a' } });
    expect(ctx.headers).toEqual({ 'x-trace': 'a' });
  });

  it('is frozen: a handler cannot change what the next caller sees', () => {
    const history = [turn('user', 'Hi')];
    const ctx = createTalkContext({ ...base, news: [], history });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.history)).toBe(true);
    history.push(turn('assistant', 'late'));
    expect(ctx.history).toHaveLength(1);
  });

  it('makes ctx.signal and ctx.headers when first read, and a handler may destructure them', () => {
    let made = 0;
    const controller = new AbortController();
    const ctx = createTalkContext({ ...base, news: [], history: [], signals: { get signal() { made++; return controller.signal; } }, headers: { 'x-trace': 'a' } });
    expect(made).toBe(0);
    const { signal, headers, toMessages, message } = ctx;
    expect(signal).toBe(controller.signal);
    expect(made).toBe(1);
    expect(headers).toEqual({ 'x-trace': 'a' });
    expect(ctx.headers).toBe(headers);
    expect(toMessages()).toEqual([{ role: 'user', content: message }]);
  });

  it('shares its getters between contexts (issue 19: a getter per context gave each its own hidden class in the old generation, which kept every turn past the young collections)', () => {
    const one = createTalkContext({ ...base, news: [], history: [] });
    const two = createTalkContext({ ...base, news: [], history: [] });
    expect(Object.getPrototypeOf(one)).toBe(Object.getPrototypeOf(two));
    for (const name of ['signal', 'headers']) {
      expect(Object.getOwnPropertyDescriptor(one, name)).toBeUndefined();
      expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(one), name)?.get).toBe('function');
    }
  });

  it('marks a reply that did not complete as interrupted, so the model does not take half an answer as said (issue 21, item 9)', () => {
    const ctx = createTalkContext({ ...base, news: [], history: [turn('user', 'Hi'), turn('assistant', 'Hello, I w', 'aborted'), turn('assistant', 'Par', 'error')] });
    expect(ctx.toMessages().map((m) => m.content)).toEqual(['Hi', `Hello, I w\n\n${INTERRUPTED_NOTE}`, `Par\n\n${INTERRUPTED_NOTE}`, 'What is my favorite color?']);
    expect(ctx.history.map((t) => t.content)).toEqual(['Hi', 'Hello, I w', 'Par']);
  });

  it('a frontend call shows once: where its result came (after the message of the turn carrying it), never also where it was handed over (issue 39, item 4)', () => {
    const call = { id: 'call_1', name: 'get_weather', arguments: '{}' };
    const handed: TalkTurn = { ...turn('assistant', ''), toolSteps: [{ calls: [{ ...call, result: 'none yet', ok: false, pending: true }] }] };
    const toolCall = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] };
    // Not answered (yet): the call with the result saying so, so every call has its result.
    expect(createTalkContext({ ...base, news: [], history: [turn('user', 'Weather?'), handed] }).toMessages()).toEqual([
      { role: 'user', content: 'Weather?' },
      toolCall,
      { role: 'tool', tool_call_id: 'call_1', content: 'none yet' },
      { role: 'user', content: base.message },
    ]);
    // Answered by this turn, which has no message of its own: after the history, once.
    const answered = [{ calls: [{ ...call, result: 'Snow', ok: true }] }];
    const continued = createTalkContext({ ...base, message: undefined, news: [], history: [turn('user', 'Weather?'), handed], answered });
    expect(continued.message).toBe('');
    expect(continued.toMessages()).toEqual([{ role: 'user', content: 'Weather?' }, toolCall, { role: 'tool', tool_call_id: 'call_1', content: 'Snow' }]);
  });
});

describe('talk.contextBudget: a turn carries news and history within a size budget (issue 21, item 3)', () => {
  const base = { message: 'now', sessionId: undefined, messageId: 'msg_1', signals: { signal: new AbortController().signal }, headers: {} };
  const item = (n: number, size: number): NewsItem => ({ type: 't', timestamp: n, news_id: `news_${n}`, message: 'x'.repeat(size) });

  it('cuts a long item or message to itemChars with a marker, never inside a surrogate pair', () => {
    const budget = { totalChars: 100_000, itemChars: 50 };
    const ctx = createTalkContext({ ...base, budget, news: [item(1, 500)], history: [turn('user', `${'y'.repeat(49)}😀tail`)] });
    const [newsMessage, historyMessage] = ctx.toMessages();
    expect(newsMessage.content).toBe(`${NEWS_GUARD}\n${JSON.stringify(item(1, 500)).slice(0, 50)}${cutMarker(50, JSON.stringify(item(1, 500)).length)}`);
    expect(historyMessage.content).toBe(`${'y'.repeat(49)}${cutMarker(49, 55)}`);
    expect(ctx.history[0]).toMatchObject({ content: historyMessage.content, fullLength: 55 });
  });

  it('keeps the newest news within half the budget and the newest history within the rest, leaving older ones out', () => {
    const budget = { totalChars: 2_000, itemChars: 2_000 };
    const news = Array.from({ length: 20 }, (_, n) => item(n, 300));
    const history = Array.from({ length: 20 }, (_, n) => turn(n % 2 ? 'assistant' : 'user', `${n}:${'h'.repeat(200)}`));
    const ctx = createTalkContext({ ...base, budget, news, history });
    const size = ctx.toMessages().reduce((sum, m) => sum + (m.content ?? '').length, 0) - 'now'.length;
    expect(size).toBeLessThanOrEqual(2_000);
    expect(ctx.news.at(-1)?.news_id).toBe('news_19');
    expect(ctx.news.length).toBeGreaterThan(0);
    expect(ctx.news.length).toBeLessThan(20);
    expect(ctx.history.at(-1)?.content.startsWith('19:')).toBe(true);
    expect(ctx.history.length).toBeLessThan(20);
  });

  it('leaves out an item that cannot be rendered (a cycle from a custom news source) instead of failing the turn', () => {
    const cyclic: NewsItem = { type: 'loop', timestamp: 2, news_id: 'news_2' };
    cyclic.self = cyclic;
    const ctx = createTalkContext({ ...base, news: [news, cyclic], history: [] });
    expect(ctx.news).toEqual([news]);
    expect(ctx.toMessages()).toHaveLength(2);
  });
});
