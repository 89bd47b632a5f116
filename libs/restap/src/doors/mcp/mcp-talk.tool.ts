import type { McpDoorOptions } from './mcp.options';
import { fromJsonSchema, type CallToolResult, type InputRequiredResult, type JsonSchemaType, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { toErrorBody } from '../kit/http/restap-exception.filter';
import type { TalkChunk } from '../../interfaces/talk.interface';
import { SESSION_ID_PATTERN } from '../../restap.constants';
import { parseSessionId } from '../../sessions/session-id';
import { checkTurnMessage } from '../../core/talk/turn-message.rule';
import type { TalkService } from '../../core/talk/talk.service';
import type { RestapCaller } from '../../core/caller';
import { askInBand, isRefusal, toolError, type McpRegistration } from './mcp-capability.tools';
import { callOf } from './mcp-call.context';
import type { ApprovalAnswer } from '../../core/approvals/approval.types';
import type { McpApprovalRounds } from './mcp-approval.rounds';

export const TALK_TOOL = 'talk';

/** What the talk tool answers: the reply and the session to continue, as POST /talk's JSON. */
interface TalkToolOutput {
  reply: string;
  session_id?: string;
  message_id: string;
  [key: string]: unknown;
}

/**
 * The `talk` tool: `{message, session_id?}` → `{reply, session_id, message_id}`, one turn of the
 * same conversation as POST /talk (the same session history, stored the same way). When the call
 * carries a `progressToken`, each text delta is sent at once as `notifications/progress` with the
 * text in `message` (progress counts the characters so far), so a client can show the reply as it
 * is written. The client cancelling the call (or leaving) stops the turn, stored as aborted.
 * Built once; the caller is the request's that carried the call, read when it runs.
 *
 * A turn that asks a person's approval answers, to a client that can be asked in-band (`rounds`:
 * 2026-07-28, form elicitation), `input_required` with the question and the sealed round (which
 * holds the session); the client's retry with the answer is the session's next turn, answering
 * that approval (message `Approve` / `Deny`). Other clients read the question in the reply and
 * answer `approve` in the same session.
 */
export function talkToolRegistration(talk: TalkService, options: McpDoorOptions, rounds?: McpApprovalRounds): McpRegistration {
  const { maxMessageLength, sessions } = options.talk;
  const input = {
    type: 'object',
    properties: {
      // Its length is judged by the turn rule every door shares (checkTurnMessage), not by the
      // SDK's schema check, so a too-long or blank message gets the same answer as on /talk and A2A.
      message: { type: 'string', description: `What to say to the agent: not blank, at most ${maxMessageLength} characters.` },
      ...(sessions
        ? { session_id: { type: 'string', pattern: SESSION_ID_PATTERN.source, description: 'The session_id of an earlier answer, to continue that conversation; omit to start one.' } }
        : {}),
    },
    required: ['message'],
  };
  const output = {
    type: 'object',
    properties: {
      reply: { type: 'string', description: "The agent's answer." },
      ...(sessions ? { session_id: { type: 'string', description: 'Pass it back as session_id to continue this conversation. A secret.' } } : {}),
      message_id: { type: 'string' },
    },
    required: ['reply', 'message_id'],
  };
  const config = {
    title: options.talk.title,
    description: `${options.talk.description}. Answers {reply, session_id}; send session_id back to continue the conversation.`,
    inputSchema: fromJsonSchema<{ message: string; session_id?: string }>(input as JsonSchemaType),
    outputSchema: fromJsonSchema<TalkToolOutput>(output as JsonSchemaType),
    annotations: { title: options.talk.title, readOnlyHint: false, openWorldHint: true },
  };
  const handler = (args: { message: string; session_id?: string }, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> =>
    runTurn(talk, maxMessageLength, args, callOf(ctx).caller, ctx, rounds);
  return { tool: TALK_TOOL, register: (server: McpServer) => server.registerTool(TALK_TOOL, config, handler) };
}

async function runTurn(
  talk: TalkService,
  maxLength: number,
  args: { message: string; session_id?: string },
  caller: RestapCaller,
  ctx: ServerContext,
  rounds?: McpApprovalRounds,
): Promise<CallToolResult | InputRequiredResult> {
  try {
    checkTurnMessage(args.message, maxLength);
    let message = args.message;
    let sessionId = args.session_id === undefined ? undefined : parseSessionId(args.session_id);
    let approval: ApprovalAnswer | undefined;
    // A retry of the input-required round-trip: the turn that answers the approval, in the session it was asked in.
    const round = rounds?.roundOf(ctx);
    if (round) {
      const answer = rounds!.answerOf(ctx, round, 'talk', TALK_TOOL, args);
      if (isRefusal(answer)) return toolError(answer.refused.message, answer.refused.error, answer.refused.status);
      approval = answer;
      message = answer.decision === 'approve' ? 'Approve' : 'Deny';
      sessionId = round.s;
    }
    const turn = await talk.open({ message, sessionId, caller, ...(approval ? { approval } : {}) });
    const { signal } = ctx.mcpReq;
    const stop = (): void => turn.stop('cancel');
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    const progressToken = ctx.mcpReq._meta?.progressToken;
    let written = 0;
    // A promise only when a notification is sent: the turn awaits what emit hands back, if anything.
    const emit = (chunk: TalkChunk): Promise<void> | undefined => {
      if (progressToken === undefined || chunk.event !== 'message.delta' || !chunk.text) return undefined;
      written += chunk.text.length;
      return ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: written, message: chunk.text } });
    };
    const result = await turn.run(emit).finally(() => signal.removeEventListener('abort', stop));
    if (result.status === 'aborted') return toolError('The turn was cancelled before the reply was complete.', 'aborted', 499);
    if (result.failure !== undefined) return errorResult(result.failure);
    // Several at once: the round asks the first; the reply text lists them all for later turns.
    const asked = result.approvals?.[0];
    if (asked && turn.sessionId && rounds?.canAsk(ctx)) return askInBand(rounds, asked, { k: 'talk', t: TALK_TOOL, s: turn.sessionId }, args, caller);
    const output: TalkToolOutput = { reply: result.text, ...(turn.sessionId ? { session_id: turn.sessionId } : {}), message_id: turn.messageId };
    return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
  } catch (error) {
    return errorResult(error);
  }
}

/** A failure as the client may see it: our error code and message (never a stack or an internal message). */
function errorResult(failure: unknown): CallToolResult {
  const { status, body } = toErrorBody(failure);
  return toolError(body.message, body.error, status);
}
