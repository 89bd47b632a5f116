import { NEWS_GUARD } from '../../restap.constants';
import type { NewsItem } from '../../interfaces/news.interface';
import type { TalkTurn } from '../../interfaces/talk.interface';
import { createTalkContext } from './talk.context';

const turn = (role: TalkTurn['role'], content: string, status: TalkTurn['status'] = 'complete'): TalkTurn => ({
  role,
  content,
  status,
  messageId: `msg_${content.length}`,
  createdAt: new Date(0),
});
const news: NewsItem = { type: 'reply', timestamp: 1703012400000, news_id: 'news_1', from: 'agent-b', message: 'Your favorite color is blue.' };

describe('TalkContext.toMessages() (OpenAI-style [{role, content}])', () => {
  const base = { message: 'What is my favorite color?', sessionId: undefined, messageId: 'msg_1', signal: new AbortController().signal, headers: {} };

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
});
