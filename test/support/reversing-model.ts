import { messagesOf, type ChatRequestBody, type FakeLlmReply } from './fake-llm';

/**
 * A fake model for approval tests: asked to reverse 'x', it calls text_reverse; given the tool's
 * result, it says what came of it (`Reversed: …`, or `The call did not run: …` for a refusal).
 */
export function reversingModel(body: ChatRequestBody): FakeLlmReply {
  const last = messagesOf(body).at(-1)!;
  if (last.role === 'tool') {
    const content = last.content ?? '';
    if (content.startsWith('Error')) return { text: `The call did not run: ${content.slice(0, 40)}` };
    return { text: `Reversed: ${(JSON.parse(content) as { reversed_text: string }).reversed_text}` };
  }
  const text = /reverse '(.*)'/.exec(last.content ?? '')?.[1];
  if (text === undefined) return { text: `You said: ${last.content}` };
  return { toolCalls: [{ id: `call_${text.length}`, name: 'text_reverse', arguments: JSON.stringify({ text }) }] };
}
