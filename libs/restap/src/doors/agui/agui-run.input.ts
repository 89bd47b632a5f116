import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { contentToText, type ResumeEntry, type RunAgentInput } from '@ag-ui/core';
import { InvalidRequestException } from '../../exceptions';
import { checkTurnMessage } from '../../core/talk/turn-message.rule';
import type { ClientTool, ClientToolResult } from '../../core/tools/client-tools';
import type { ApprovalAnswer } from '../../core/approvals/approval.types';
import { mintSessionId, parseSessionId } from '../../sessions/session-id';

/** Most resume entries one run takes (one per interrupt of the run it continues). */
const MAX_RESUME_ENTRIES = 32;

/** What a run asks of the core: the turn's message, the session it continues, what it carries. */
export interface AguiRun {
  /** The run's `threadId` as answered in RUN_STARTED / RUN_FINISHED (the session_id, minted when the client sent none). A secret. */
  threadId: string;
  runId: string;
  /** The last user message's text: the turn's message; undefined in a run that continues the thread without one. */
  message?: string;
  /** The session to continue; undefined when sessions are off. */
  sessionId?: string;
  /** True when the door minted `sessionId` for this run (an empty `threadId`): nothing to read yet. */
  sessionMinted: boolean;
  /** The run's `tools`: the client's frontend tools, offered to the model beside the capabilities. */
  tools: ClientTool[];
  /** The run's `tool` messages: results of the frontend tool calls the thread waits for (the core takes only those). */
  toolResults: ClientToolResult[];
  /** The run's `resume` entries as approval answers (each interrupt this door sends is an approval). */
  approvals: ApprovalAnswer[];
}

/** The `responseSchema` of an approval interrupt: what a resume entry's `payload` says. */
export const APPROVAL_RESPONSE_SCHEMA = Object.freeze({
  type: 'object',
  required: ['decision'],
  additionalProperties: false,
  properties: { decision: { enum: ['approve', 'deny'] } },
});

/**
 * Reads a run from a request body: `RunAgentInput` as `@ag-ui/core`'s schema has it (400
 * invalid_request naming the first field that is wrong, never quoting a value), then:
 *
 * - the turn's message is the last message when it is the user's (text, or text parts), through
 *   core's one turn rule (`checkTurnMessage`: not blank, `talk.maxMessageLength`, storable). A run
 *   whose last message is a `tool` message, or that carries `resume` entries, continues the thread
 *   without a new message (a frontend tool's result, an approval's answer); any other last message
 *   is refused. The earlier `messages` are not trusted as history: the session's history is read
 *   from storage; only `tool` messages are read, as results of the calls the thread waits for.
 * - `resume` entries answer this door's interrupts, each an approval: `resolved` with the payload
 *   `{"decision": "approve" | "deny"}`, or `cancelled` (a denial: the call never runs).
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
  const approvals = (input.resume ?? []).map(approvalAnswerOf);
  if (approvals.length > MAX_RESUME_ENTRIES) throw new InvalidRequestException(`A run carries at most ${MAX_RESUME_ENTRIES} resume entries.`);
  const message = lastUserText(input, approvals.length > 0);
  if (message !== undefined) checkTurnMessage(message, options.maxMessageLength);
  const carried = {
    runId: input.runId,
    message,
    tools: (input.tools ?? []).map(({ name, description, parameters }) => ({ name, description, parameters })),
    toolResults: toolResultsOf(input),
    approvals,
  };
  if (!options.sessions) return { threadId: input.threadId, sessionMinted: false, ...carried };
  if (input.threadId === '') {
    const minted = mintSessionId();
    return { threadId: minted, sessionId: minted, sessionMinted: true, ...carried };
  }
  const sessionId = parseSessionId(input.threadId);
  return { threadId: sessionId, sessionId, sessionMinted: false, ...carried };
}

/** A resume entry as the approval answer it gives. */
function approvalAnswerOf(entry: ResumeEntry, i: number): ApprovalAnswer {
  if (entry.status === 'cancelled') return { id: entry.interruptId, decision: 'deny' };
  const decision = (entry.payload as { decision?: unknown } | null | undefined)?.decision;
  if (decision === 'approve' || decision === 'deny') return { id: entry.interruptId, decision };
  throw new InvalidRequestException(`resume.${i}.payload answers an approval: {"decision": "approve"} or {"decision": "deny"} (the interrupt's responseSchema), or cancel it.`);
}

/** The run's tool messages, as results of the frontend tool calls they answer. */
function toolResultsOf(input: RunAgentInput): ClientToolResult[] {
  const results: ClientToolResult[] = [];
  for (const m of input.messages) {
    if (m.role !== 'tool') continue;
    results.push({ toolCallId: m.toolCallId, content: contentToText(m.content), ...(m.error !== undefined ? { error: m.error } : {}) });
  }
  return results;
}

/**
 * The text of the run's last message when it is the user's; undefined when the run continues the
 * thread without one (its last message a tool result, or `resume` entries given).
 */
function lastUserText(input: RunAgentInput, resumes: boolean): string | undefined {
  const last = input.messages.at(-1);
  if (last?.role === 'tool' || (resumes && last?.role !== 'user')) return undefined;
  if (!last || last.role !== 'user') {
    throw new InvalidRequestException(
      "The run's last message must be the user's (the turn this agent answers), or a tool's result for a frontend tool call the thread waits for: the conversation before it is read from the thread's stored history.",
    );
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
