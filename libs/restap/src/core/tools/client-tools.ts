import type { JsonSchema } from '../../interfaces/catalog.interface';
import type { TalkTool, TalkToolCallRecord, TalkToolStep, TalkTurn } from '../../interfaces/talk.interface';
import { InvalidRequestException } from '../../exceptions';
import { TOOL_NAME_PATTERN } from './tool-names';
import { MAX_TOOL_RESULT_CHARS } from './talk-tools';

/**
 * A tool the client runs itself (an AG-UI frontend tool), as a door hands it to a turn: offered to
 * the model beside the capabilities; a call of it is handed back to the client.
 */
export interface ClientTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema); none: no arguments. */
  parameters?: unknown;
}

/** The client's result of a call of one of its tools, carried by a later turn of the session. */
export interface ClientToolResult {
  /** The model's call id, as the turn that handed the call over gave it. */
  toolCallId: string;
  /** What the tool gave, as text. */
  content: string;
  /** Why it failed, when it did. */
  error?: string;
}

/** Most client tools one turn offers (OpenAI takes 128 functions in all; the capabilities need room too). */
export const MAX_CLIENT_TOOLS = 64;

/**
 * The client's tools as `ctx.tools.list` shows them. The rule: a client tool's name is a function
 * name (`^[a-zA-Z0-9_-]{1,64}$`), unique among the client's tools, and never the tool name of one
 * of the app's capabilities (`isCapability`): a capability is never shadowed by, nor mistaken for, a
 * tool the client runs. Anything else is 400 invalid_request naming the tool.
 */
export function clientTalkTools(tools: readonly ClientTool[], isCapability: (name: string) => boolean): readonly TalkTool[] {
  if (tools.length > MAX_CLIENT_TOOLS) throw new InvalidRequestException(`A run offers at most ${MAX_CLIENT_TOOLS} client tools; this one has ${tools.length}.`);
  const seen = new Set<string>();
  return Object.freeze(
    tools.map((tool, i) => {
      const { name } = tool;
      if (!TOOL_NAME_PATTERN.test(name)) {
        throw new InvalidRequestException(`Client tool ${i} has the name ${JSON.stringify(name.slice(0, 80))}: a tool name matches ^[a-zA-Z0-9_-]{1,64}$.`);
      }
      if (isCapability(name)) {
        throw new InvalidRequestException(`Client tool "${name}" has the name of one of this agent's capabilities: a client tool needs a name of its own.`);
      }
      if (seen.has(name)) throw new InvalidRequestException(`Client tool "${name}" is offered twice.`);
      seen.add(name);
      return Object.freeze({ name, description: tool.description, parameters: parametersOf(tool.parameters), client: true as const });
    }),
  );
}

/** The tool's schema, or an empty object schema (a model API wants one for every function). */
function parametersOf(parameters: unknown): JsonSchema {
  if (parameters && typeof parameters === 'object' && !Array.isArray(parameters)) return parameters as JsonSchema;
  return { type: 'object', properties: {} };
}

/**
 * The client calls a session still waits for: recorded `pending` in its history and answered by no
 * later turn, by call id.
 */
export function pendingClientCalls(history: readonly TalkTurn[]): Map<string, TalkToolCallRecord> {
  const pending = new Map<string, TalkToolCallRecord>();
  for (const turn of history) {
    for (const step of turn.toolSteps ?? []) {
      for (const call of step.calls) {
        if (call.pending) pending.set(call.id, call);
        else pending.delete(call.id);
      }
    }
  }
  return pending;
}

/**
 * The step a turn carrying client results starts with: each result that answers a pending call,
 * the call as the model made it (name, arguments from storage: the client gives only the result)
 * with the result. Undefined when none answers a pending call (an earlier call's result, resent
 * with the conversation, answers nothing).
 */
export function answeredClientStep(pending: ReadonlyMap<string, TalkToolCallRecord>, results: readonly ClientToolResult[]): TalkToolStep | undefined {
  const calls: TalkToolCallRecord[] = [];
  const taken = new Set<string>();
  for (const result of results) {
    const call = pending.get(result.toolCallId);
    if (!call || taken.has(call.id)) continue;
    taken.add(call.id);
    const text = result.error === undefined ? result.content : `Error: ${result.error}${result.content ? `\n${result.content}` : ''}`;
    calls.push({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      result: text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}…[truncated]` : text,
      ok: result.error === undefined,
    });
  }
  return calls.length ? { calls } : undefined;
}
