import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { RunAgentInput } from '@ag-ui/core';
import { InvalidRequestException } from '../../exceptions';
import { checkTurnMessage } from '../../core/talk/turn-message.rule';
import { mintSessionId, parseSessionId } from '../../sessions/session-id';

/** What a run asks of the core: the turn's message and the session it continues. */
export interface AguiRun {
  /** The run's `threadId` as answered in RUN_STARTED / RUN_FINISHED (the session_id, minted when the client sent none). A secret. */
  threadId: string;
  runId: string;
  /** The last user message's text: the turn's message. */
  message: string;
  /** The session to continue; undefined when sessions are off. */
  sessionId?: string;
  /** True when the door minted `sessionId` for this run (an empty `threadId`): nothing to read yet. */
  sessionMinted: boolean;
}

/**
 * Reads a run from a request body: `RunAgentInput` as `@ag-ui/core`'s schema has it (400
 * invalid_request naming the first field that is wrong, never quoting a value), then:
 *
 * - the turn's message is the last message, which must be the user's (text, or text parts), through
 *   core's one turn rule (`checkTurnMessage`: not blank, `talk.maxMessageLength`, storable). The
 *   earlier `messages` are not trusted as history: the session's history is read from storage.
 * - `threadId` is the RESTAP session_id, under the session rules (`^[A-Za-z0-9._-]{16,128}$`, a
 *   UUIDv4 is fine: 400 invalid_session_id otherwise); an empty `threadId` starts a new session
 *   whose id the door mints and answers as the run's `threadId`.
 */
export function readAguiRun(body: unknown, options: { sessions: boolean; maxMessageLength: number }): AguiRun {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length ? issue.path.join('.') : 'the body';
    throw new InvalidRequestException(`The body is not an AG-UI RunAgentInput: ${where}: ${issue?.message ?? 'invalid'}.`);
  }
  const input = parsed.data as RunAgentInput;
  const message = lastUserText(input);
  checkTurnMessage(message, options.maxMessageLength);
  if (!options.sessions) return { threadId: input.threadId, runId: input.runId, message, sessionMinted: false };
  if (input.threadId === '') {
    const minted = mintSessionId();
    return { threadId: minted, runId: input.runId, message, sessionId: minted, sessionMinted: true };
  }
  const sessionId = parseSessionId(input.threadId);
  return { threadId: sessionId, runId: input.runId, message, sessionId, sessionMinted: false };
}

/** The text of the run's last message, which must be the user's. */
function lastUserText(input: RunAgentInput): string {
  const last = input.messages.at(-1);
  if (!last || last.role !== 'user') {
    throw new InvalidRequestException('The run\'s last message must be the user\'s: it is the turn this agent answers (the conversation before it is read from the thread\'s stored history).');
  }
  const { content } = last;
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type !== 'text') throw new InvalidRequestException(`This agent takes text: the user message has a ${JSON.stringify(part.type).slice(0, 40)} part.`);
    texts.push(part.text);
  }
  return texts.join('\n');
}
