import type { InvocationResult } from '../invoker/invocation-result';
import { failure } from '../invoker/invocation-error';
import type { RestapCaller } from '../caller';
import type { TalkTool, TalkToolCallRecord, TalkToolResult, TalkTools, TalkToolStep } from '../../interfaces/talk.interface';
import { randomToken } from '../../sessions/random-token';
import type { CapabilityTools, ToolCallGate, ToolDefinition } from './capability-tools';

/**
 * The approval gate of one turn's tool calls (see TurnApprovals): counts the calls in flight and
 * may hold one for a person's approval.
 */
export interface TalkToolApprovals {
  begin(): void;
  end(): void;
  gate(tool: ToolDefinition, args: Record<string, unknown>, callId: string): Promise<InvocationResult | undefined>;
}

/** Longest tool result handed to the model and kept in history, characters. */
export const MAX_TOOL_RESULT_CHARS = 32_000;

const UNANSWERED = 'Error 499 aborted: the turn ended before the tool answered.';

/** The error code of a client tool's call as the handler gets it back: handed to the client, no result yet. */
export const CLIENT_TOOL_PENDING = 'client_tool_pending';

/** What a pending call's `result` says while no result came back (the model reads it should it stay so). */
export const NO_CLIENT_RESULT = `Error 202 ${CLIENT_TOOL_PENDING}: the client runs this tool and has not returned its result.`;

/**
 * The tool calls of one turn, in the order the model asked for them, grouped by step: what is
 * stored with the assistant's reply (also when the turn is aborted: the calls done so far).
 */
export class ToolStepLog {
  /** Steps in the order their first call was made (a Map keeps insertion order). */
  private steps?: Map<unknown, TalkToolCallRecord[]>;
  /** Calls made through `ctx.tools` that have not answered yet. */
  running = 0;
  /** Client tools' calls handed to the client this turn (their results come in a later turn). */
  readonly handedOver: TalkToolCallRecord[] = [];

  /** True once a call was handed to the client and no other call is still running: the turn should end. */
  get handedOff(): boolean {
    return this.handedOver.length > 0 && this.running === 0;
  }

  /**
   * Reserves the call's place in its step (so parallel calls keep the model's order); the caller
   * fills in the result. A call without a step key is a step of its own.
   */
  open(step: unknown, record: TalkToolCallRecord): TalkToolCallRecord {
    const key = step ?? Symbol('step');
    const steps = (this.steps ??= new Map());
    let calls = steps.get(key);
    if (!calls) steps.set(key, (calls = []));
    calls.push(record);
    return record;
  }

  /** The steps so far, oldest first; undefined when no tool was called. */
  snapshot(): TalkToolStep[] | undefined {
    if (!this.steps?.size) return undefined;
    return [...this.steps.values()].map((calls) => ({ calls: calls.map((c) => ({ ...c })) }));
  }
}

/**
 * `ctx.tools` for one turn: the capabilities offered as tools, each call made with the turn's
 * caller, cut by the turn's signal, and written to the turn's step log. `tools` undefined (or
 * `talk.tools: false`) gives an empty list whose `call` answers unknown_tool.
 */
export function createTalkTools(
  tools: CapabilityTools | undefined,
  caller: RestapCaller,
  signal: AbortSignal,
  log: ToolStepLog,
  approvals?: TalkToolApprovals,
  clientTools: readonly TalkTool[] = NONE,
): TalkTools {
  const capabilities = tools ? talkToolsOf(tools, caller) : NONE;
  const list = clientTools.length ? Object.freeze([...capabilities, ...clientTools]) : capabilities;
  const client = clientTools.length ? new Set(clientTools.map((t) => t.name)) : undefined;
  const call = async (name: string, args: unknown, options: { id?: string; step?: string | number } = {}): Promise<TalkToolResult> => {
    const id = options.id ?? `call_${randomToken(12)}`;
    const raw = typeof args === 'string' ? args : (JSON.stringify(args ?? {}) ?? '{}');
    // What history keeps if the turn ends (client gone) before the tool answers.
    const record = log.open(options.step, { id, name, arguments: raw, result: UNANSWERED, ok: false });
    if (client?.has(name)) return handOver(record, args, log);
    log.running++;
    approvals?.begin();
    let result: InvocationResult;
    try {
      result = await invoke(tools, name, args, caller, signal, approvals && ((tool, parsed) => approvals.gate(tool, parsed, id)), id);
    } finally {
      approvals?.end();
      log.running--;
    }
    const content = resultText(result);
    record.ok = result.ok;
    record.result = content;
    return { ...result, id, content };
  };
  return Object.freeze({ list, call });
}

/**
 * A client tool's call: nothing runs here. Well-formed (a JSON object), it is recorded `pending`
 * and handed to the client (the turn ends once no other call runs); malformed, the model gets the
 * error, as for a capability, and the client never sees it.
 */
function handOver(record: TalkToolCallRecord, args: unknown, log: ToolStepLog): TalkToolResult {
  let parsed = args;
  if (typeof args === 'string') {
    try {
      parsed = args.trim() ? JSON.parse(args) : {};
    } catch (error) {
      return settle(record, failure(400, 'invalid_arguments', `The arguments of ${record.name} are not valid JSON (${(error as Error).message}).`));
    }
  }
  if (parsed !== undefined && parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
    return settle(record, failure(400, 'invalid_arguments', `The arguments of ${record.name} must be a JSON object.`));
  }
  record.result = NO_CLIENT_RESULT;
  record.pending = true;
  log.handedOver.push(record);
  const message = `${record.name} runs in the client: the call is handed to it and its result comes with the conversation's next turn. Do not call it again.`;
  return { ok: false, status: 202, error: CLIENT_TOOL_PENDING, message, pending: true, id: record.id, content: NO_CLIENT_RESULT };
}

function settle(record: TalkToolCallRecord, result: InvocationResult): TalkToolResult {
  const content = resultText(result);
  record.ok = result.ok;
  record.result = content;
  return { ...result, id: record.id, content };
}

const NONE: readonly TalkTool[] = Object.freeze([]);
const lists = new WeakMap<CapabilityTools, readonly TalkTool[]>();

/**
 * The tools as `ctx.tools.list` shows them, built once per app (every turn shares the frozen list);
 * for a caller with an OAuth token, only the tools its scopes allow.
 */
function talkToolsOf(tools: CapabilityTools, caller: RestapCaller): readonly TalkTool[] {
  let list = lists.get(tools);
  if (!list) {
    list = Object.freeze(
      tools.list().map((t) =>
        Object.freeze({ name: t.name, capabilityId: t.capabilityId, description: t.description ? `${t.title}: ${t.description}` : t.title, parameters: t.inputSchema }),
      ),
    );
    lists.set(tools, list);
  }
  if (caller.auth === undefined) return list;
  const allowed = new Set(tools.list(caller).map((t) => t.name));
  return allowed.size === list.length ? list : Object.freeze(list.filter((t) => allowed.has(t.name)));
}

async function invoke(tools: CapabilityTools | undefined, name: string, args: unknown, caller: RestapCaller, signal: AbortSignal, gate: ToolCallGate | undefined, callId: string): Promise<InvocationResult> {
  if (!tools) return failure(404, 'unknown_tool', `There is no tool named '${name}': no tools are offered.`);
  if (typeof args === 'string') {
    try {
      args = args.trim() ? JSON.parse(args) : {};
    } catch (error) {
      return failure(400, 'invalid_arguments', `The arguments of ${name} are not valid JSON (${(error as Error).message}).`);
    }
  }
  return tools.call(name, args, caller, signal, undefined, gate, callId);
}

/** The tool result as the model reads it: the JSON body, or `Error <status> <code>: <message>`. */
export function resultText(result: InvocationResult): string {
  const text = result.ok
    ? typeof result.body === 'string'
      ? result.body
      : (JSON.stringify(result.body) ?? 'null')
    : `Error ${result.status} ${result.error}: ${result.message}`;
  return text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}…[truncated]` : text;
}
