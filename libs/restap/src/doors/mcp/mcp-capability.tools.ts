import { fromJsonSchema, requireScopes, type CallToolResult, type InputRequiredResult, type JsonSchemaType, type McpServer, type RegisteredTool, type ServerContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { JsonSchema } from '../../interfaces/catalog.interface';
import type { CapabilityTools, ToolDefinition } from '../../core/tools/capability-tools';
import type { CapabilityCallEvents, CapabilityLogLevel } from '../../core/invoker/capability-events';
import type { InvocationResult } from '../../core/invoker/invocation-result';
import { callOf } from './mcp-call.context';
import { checkArguments, checkResult, listedOnly } from './mcp-tool-checks';
import { ERROR_META_KEY, toolError } from './mcp-tool-errors';

export { ERROR_META_KEY, toolError };
import type { ApprovalService } from '../../core/approvals/approval.service';
import type { ApprovalAnswer, ApprovalRequest } from '../../core/approvals/approval.types';
import type { McpApprovalRounds, RoundRefusal } from './mcp-approval.rounds';
import type { RestapCaller } from '../../core/caller';
import type { CapabilityTasks } from '../../core/tasks/capability-tasks';

/** One registration on a request's server, built once per process: configs, schemas and handlers are shared by every server. */
export interface McpRegistration {
  /** The tool it registers, if it is a tool. */
  readonly tool?: string;
  /** The OAuth scopes calling it needs (`auth.oauth`): a caller without them does not see it listed. */
  readonly scopes?: readonly string[];
  /** Registers it on `server`; a tool's registration returns the SDK's handle (a session lists it per token). */
  readonly register: (server: McpServer) => RegisteredTool | void;
  /** Set when the tool's capability runs as a task (`@Capability({ task: true })`, see enableTasks). */
  readonly taskTool?: McpTaskTool;
}

/** A tool whose capability may run as a task (`@Capability({ task: true })`). */
export interface McpTaskTool {
  capabilityId: string;
  /** The tool's input schema: a call is checked before its task starts, as the SDK checks a plain call. */
  input: StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>>;
  /** The tool's output schema: the result of `tasks/result` is checked as the SDK checks a plain call's. */
  output?: StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>>;
  structured: 'object' | 'wrapped' | undefined;
}

/** `_meta` key naming the capability behind a tool (tool names cannot hold its dots everywhere). */
export const CAPABILITY_META_KEY = 'io.restap/capability';
/**
 * `_meta` key of approvals (docs/approvals.md): a held call's result carries the approval asked
 * for under it; the client answers by calling the tool again with the same arguments and
 * `_meta: {"io.restap/approval": {"id", "decision": "approve" | "deny"}}`.
 */
export const APPROVAL_META_KEY = 'io.restap/approval';

/**
 * One MCP tool per capability offered as a tool: the discovery schemas as they are (JSON Schema
 * 2020-12, `$defs`, no `$schema`), `readOnlyHint` for GET, the title, and the capability id in
 * `_meta`. A call goes through `CapabilityTools` (the invoker: the host's guards with the
 * caller's headers — the request's that carried the call, read when it runs — pipes, interceptors,
 * filters). A refusal or failure is a tool result with `isError: true` and the route's message,
 * never a JSON-RPC error and never a stack. Built once: each request's server only registers them.
 * A call held for approval asks in-band (`rounds`: the 2026-07-28 input-required round-trip) when
 * the client can be asked so, else answers how to resend it with the decision in `_meta`.
 */
export function capabilityToolRegistrations(tools: CapabilityTools, approvals?: ApprovalService, rounds?: McpApprovalRounds, tasks?: CapabilityTasks): McpRegistration[] {
  return tools.list().map((tool) => {
    const outputSchema = structuredSchema(tool.outputSchema);
    const scopes = tools.scopesOf(tool);
    const inputSchema = fromJsonSchema<Record<string, unknown>>(tool.inputSchema as JsonSchemaType);
    const output = outputSchema ? fromJsonSchema<Record<string, unknown>>(outputSchema as JsonSchemaType) : undefined;
    const task = tasks?.isTask(tool.capabilityId) === true;
    const config = {
      title: tool.title,
      ...(tool.description ? { description: tool.description } : {}),
      // Checked by the door (mcp-tool-checks): a refusal carries our `_meta` error code.
      inputSchema: listedOnly(inputSchema),
      ...(output ? { outputSchema: listedOnly(output) } : {}),
      annotations: annotationsOf(tool),

      _meta: { [CAPABILITY_META_KEY]: tool.capabilityId },
      // A tools/call whose token lacks the scopes: the SDK answers HTTP 403 insufficient_scope with
      // the step-up challenge (MCP authorization, 2025-11-25), before the tool runs.
      ...(scopes.length ? { scopeChallenge: requireScopes(...(scopes as [string, ...string[]])) } : {}),
    };
    const structured = outputSchema === undefined ? undefined : tool.outputSchema?.type === 'array' ? 'wrapped' : 'object';
    const handler = async (input: Record<string, unknown> | undefined, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
      const { caller } = callOf(ctx);
      const checked = await checkArguments(inputSchema, input, tool.name);
      if ('refused' in checked) return checked.refused;
      const args = checked.value;
      // A retry of the input-required round-trip: the person's answer, checked against the sealed round.
      const round = rounds?.roundOf(ctx);
      const answer = round ? rounds!.answerOf(ctx, round, 'call', tool.name, args) : approvalAnswerOf(ctx.mcpReq._meta);
      if (answer === INVALID_ANSWER) return toolError(`_meta["${APPROVAL_META_KEY}"] must be {"id": "apr_…", "decision": "approve" | "deny"}.`, 'invalid_request', 400);
      if (answer && isRefusal(answer)) return toolError(answer.refused.message, answer.refused.error, answer.refused.status);
      const gate = approvals?.gateFor('mcp', caller, answer);
      const started = performance.now();
      const result = await tools.call(tool.name, args, caller, ctx.mcpReq.signal, undefined, gate, undefined, new McpCallEvents(ctx));
      await logCall(ctx, tool.capabilityId, result, performance.now() - started);
      if (!result.ok && result.approval && !answer && rounds?.canAsk(ctx)) return askInBand(rounds, result.approval, { k: 'call', t: tool.name }, args, caller);
      return checkResult(toToolResult(result, structured, tool.name), output, tool.name);
    };
    const taskTool: McpTaskTool | undefined = task ? { capabilityId: tool.capabilityId, input: inputSchema, ...(output ? { output } : {}), structured } : undefined;
    return {
      tool: tool.name,
      ...(scopes.length ? { scopes } : {}),
      ...(taskTool ? { taskTool } : {}),
      register: (server: McpServer) => {
        const registered = server.registerTool(tool.name, config, handler);
        // A long-running capability (issue 38, item 8): a 2025-11-25 client may ask for a task.
        // registerTool takes no `execution`; the registered tool carries it into tools/list, and
        // the SDK leaves it out of a 2026-07-28 list (not in that revision's Tool).
        if (task) registered.execution = { taskSupport: 'optional' };
        return registered;
      },
    };
  });
}

/** The `logger` name of the module's log notifications. */
export const LOG_NAME = 'restap';

/**
 * One log notification per capability call (`info` when it answered, `warning` when it was
 * refused or failed): the capability, the HTTP status, the error code, the time taken — never
 * arguments or answers. The SDK sends it only where a channel and a level allow: a 2025-era session
 * at or above its `logging/setLevel` level, a 2026-07-28 request that asked for logs.
 */
async function logCall(ctx: ServerContext, capability: string, result: InvocationResult, ms: number): Promise<void> {
  const data = { capability, status: result.status, ms: Math.round(ms), ...(result.ok ? {} : { error: result.error }) };
  await ctx.mcpReq.log(result.ok ? 'info' : 'warning', data, LOG_NAME).catch(() => undefined);
}

/**
 * Where a capability's own progress and log messages go (capabilityProgress, capabilityLog):
 * `notifications/progress` when the request carries a progressToken, `notifications/message`
 * (logger `restap`) where the SDK has a channel and the level allows, as the call's own log.
 * One small object per call: what it sends is only looked at when the capability reports.
 */
class McpCallEvents implements CapabilityCallEvents {
  constructor(private readonly ctx: ServerContext) {}

  /** None without a progressToken: capabilityProgress then ignores the report. */
  get progress(): CapabilityCallEvents['progress'] {
    const { mcpReq } = this.ctx;
    const progressToken = mcpReq._meta?.progressToken;
    if (progressToken === undefined) return undefined;
    return (progress, total, message) =>
      void mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) } })
        .catch(() => undefined);
  }

  log(level: CapabilityLogLevel, data: unknown): void {
    void this.ctx.mcpReq.log(level, data, LOG_NAME).catch(() => undefined);
  }
}

/** Hints only: a GET capability reads; nothing else is claimed (the host knows its side effects). */
function annotationsOf(tool: ToolDefinition): { title: string; readOnlyHint: boolean } {
  return { title: tool.title, readOnlyHint: tool.method === 'GET' };
}

/** The key an array output is wrapped under (MCP's `structuredContent` is always an object). */
export const ARRAY_OUTPUT_KEY = 'items';

/**
 * The tool's `outputSchema`: an object schema as it is; an array schema wrapped as
 * `{items: [...]}` (its `$defs` kept at the root, where its `$ref`s point); anything else none.
 */
export function structuredSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  if (schema.type === 'object') return schema;
  if (schema.type !== 'array') return undefined;
  const { $defs, ...array } = schema;
  return { type: 'object', properties: { [ARRAY_OUTPUT_KEY]: array }, required: [ARRAY_OUTPUT_KEY], ...($defs === undefined ? {} : { $defs }) };
}

/**
 * A capability's answer as a tool result: the JSON as text, and as `structuredContent` when the
 * tool declares an output schema — the object itself, or an array as `{items: [...]}` (`wrapped`).
 * A call held for approval is the result that says how a person approves it.
 */
export function toToolResult(result: InvocationResult, structured: 'object' | 'wrapped' | undefined, toolName?: string): CallToolResult {
  if (!result.ok && result.approval) return approvalRequired(result.approval, toolName ?? result.approval.capability);
  if (!result.ok) return toolError(result.message, result.error, result.status);
  const { body } = result;
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const content = structured === 'object' && isObject ? (body as Record<string, unknown>) : structured === 'wrapped' && Array.isArray(body) ? { [ARRAY_OUTPUT_KEY]: body } : undefined;
  return {
    content: [{ type: 'text', text }],
    ...(content ? { structuredContent: content } : {}),
  };
}


const INVALID_ANSWER = Symbol('invalid approval answer');

export function isRefusal(answer: ApprovalAnswer | RoundRefusal): answer is RoundRefusal {
  return 'refused' in answer;
}

/** A held call asked in-band (2026-07-28): the question as an elicitation, the round sealed; the approval in `_meta` too. */
export function askInBand(rounds: McpApprovalRounds, approval: ApprovalRequest, round: Parameters<McpApprovalRounds['ask']>[1], args: unknown, caller: RestapCaller): InputRequiredResult {
  return { ...rounds.ask(approval, round, args, caller), _meta: { [APPROVAL_META_KEY]: { ...approval } } };
}

/** The person's answer a resent call carries in its `_meta`, if any. */
function approvalAnswerOf(meta: Record<string, unknown> | undefined): ApprovalAnswer | undefined | typeof INVALID_ANSWER {
  const value = meta?.[APPROVAL_META_KEY];
  if (value === undefined) return undefined;
  const { id, decision, ...rest } = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  if (typeof id !== 'string' || (decision !== 'approve' && decision !== 'deny') || Object.keys(rest).length) return INVALID_ANSWER;
  return { id, decision };
}

/**
 * A held call: not an error of the tool, but a result that says it has not run and how a person
 * approves it. No elicitation: the door is stateless, and a client's elicitation answer is no proof
 * that a person agreed.
 */
function approvalRequired(approval: ApprovalRequest, toolName: string): CallToolResult {
  const answer = (decision: string): string => JSON.stringify({ [APPROVAL_META_KEY]: { id: approval.id, decision } });
  const text =
    `Approval needed: ${approval.question} The call has NOT run. To run it, a person approves approval ${approval.id} ` +
    `before ${approval.expires_at}: call ${toolName} again with the same arguments and _meta ${answer('approve')} ` +
    `(or ${answer('deny')} to drop it). It runs once.`;
  return {
    isError: true,
    content: [{ type: 'text', text }],
    _meta: { [ERROR_META_KEY]: { error: 'approval_required', status: 403 }, [APPROVAL_META_KEY]: { ...approval } },
  };
}
