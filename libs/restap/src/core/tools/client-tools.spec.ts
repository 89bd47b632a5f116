import type { TalkTurn } from '../../interfaces/talk.interface';
import { answeredClientStep, clientTalkTools, pendingClientCalls } from './client-tools';
import { NO_CLIENT_RESULT } from './talk-tools';

const turn = (calls: TalkTurn['toolSteps']): TalkTurn => ({ role: 'assistant', content: '', messageId: 'm', status: 'complete', createdAt: new Date(0), toolSteps: calls });
const pending = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', result: NO_CLIENT_RESULT, ok: false, pending: true as const };

describe('clientTalkTools: the naming rule of frontend tools (issue 39, item 4)', () => {
  const capabilities = new Set(['text_reverse']);
  const check = (tools: Array<{ name: string; description: string; parameters?: unknown }>) => clientTalkTools(tools, (name) => capabilities.has(name));

  it('offers each as a client tool, with an empty object schema when it declares none', () => {
    expect(check([{ name: 'get_weather', description: 'd' }])).toEqual([{ name: 'get_weather', description: 'd', parameters: { type: 'object', properties: {} }, client: true }]);
  });
  it("refuses a capability's tool name, a name a model API refuses, and a name given twice (400 invalid_request)", () => {
    expect(() => check([{ name: 'text_reverse', description: 'd' }])).toThrow(/has the name of one of this agent's capabilities/);
    expect(() => check([{ name: 'text.reverse', description: 'd' }])).toThrow(/\^\[a-zA-Z0-9_-\]\{1,64\}\$/);
    expect(() => check([{ name: 'a', description: 'd' }, { name: 'a', description: 'e' }])).toThrow(/offered twice/);
    expect(() => check(Array.from({ length: 65 }, (_, i) => ({ name: `t${i}`, description: 'd' })))).toThrow(/at most 64/);
  });
});

describe('pendingClientCalls / answeredClientStep: a frontend call waits until a later turn carries its result (issue 39, item 4)', () => {
  it('a call handed over and not answered since is pending; answered by a later turn, it is not', () => {
    expect([...pendingClientCalls([turn([{ calls: [pending] }])]).keys()]).toEqual(['call_1']);
    const answered = { ...pending, result: 'Snow', ok: true, pending: undefined };
    expect(pendingClientCalls([turn([{ calls: [pending] }]), turn([{ calls: [answered] }])]).size).toBe(0);
  });
  it('takes the call from storage and the result from the client; ignores results of calls not pending; an error is a failed result', () => {
    const waits = pendingClientCalls([turn([{ calls: [pending] }])]);
    expect(answeredClientStep(waits, [{ toolCallId: 'call_old', content: 'x' }])).toBeUndefined();
    expect(answeredClientStep(waits, [{ toolCallId: 'call_1', content: 'Snow' }, { toolCallId: 'call_1', content: 'again' }])).toEqual({
      calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', result: 'Snow', ok: true }],
    });
    expect(answeredClientStep(waits, [{ toolCallId: 'call_1', content: '', error: 'no GPS' }])!.calls[0]).toMatchObject({ result: 'Error: no GPS', ok: false });
  });
});
