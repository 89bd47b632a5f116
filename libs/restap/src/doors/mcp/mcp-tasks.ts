import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  specTypeSchemas,
  type CallToolResult,
  type McpServer,
  type ServerContext,
  type StandardSchemaV1,
  type Task,
} from '@modelcontextprotocol/server';
import type { CapabilityTaskDocument, CapabilityTasks } from '../../core/tasks/capability-tasks';
import { callOf } from './mcp-call.context';
import { issuesText, checkResult } from './mcp-tool-checks';
import { toToolResult, toolError, type McpTaskTool } from './mcp-capability.tools';

/** How often a client should poll a working task (the Task's `pollInterval`), ms. */
export const TASK_POLL_INTERVAL_MS = 1000;

/** What the server advertises to a 2025-11-25 client when some tool runs as a task (tasks on tools/call, list, cancel). */
export const TASK_CAPABILITIES = { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } } as const;

/** A capability task as an MCP Task (2025-11-25 tasks, the SDK's `Task` type). */
export function toMcpTask(task: CapabilityTaskDocument): Task {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.updatedAt,
    ttl: task.ttlMs,
    ...(task.status === 'working' ? { pollInterval: TASK_POLL_INTERVAL_MS } : {}),
  };
}

/**
 * MCP tasks for 2025-11-25 clients (2026-07-28 clients: the extension, see mcp-tasks.extension.ts)
 * on one request's server, for the tools whose capability runs as a task (issue 38, item 8). A
 * `tools/call` that asks for a task (`params.task`, its `ttl` honoured up to `capabilityTasks.ttlMs`)
 * starts the capability through CapabilityTasks and answers at once with the CreateTaskResult; any
 * other call reaches the SDK's own handler. `tasks/get`, `tasks/result`, `tasks/list` (the caller's
 * own, newest first) and `tasks/cancel` read PostgreSQL, so any replica answers them. Their params
 * are checked with the SDK's own task schemas (`specTypeSchemas`).
 *
 * Call this before the server declares `tools` or registers a tool (see interceptTaskCalls).
 */
export function enableTasks(server: McpServer, tasks: CapabilityTasks, taskTools: ReadonlyMap<string, McpTaskTool>): void {
  const inner = server.server;
  interceptTaskCalls(server, tasks, taskTools, {
    wanted: (request, ctx) => (request.params.task ?? callOf(ctx).task) !== undefined,
    ttlMs: (request, ctx) => ttlAsked(request.params.task ?? callOf(ctx).task),
    // The SDK checks every tools/call result against CallToolResult: an empty content beside the task.
    answer: (task) => ({ content: [], task: toMcpTask(task) }),
  });

  const getParams = paramsOf('tasks/get', specTypeSchemas.GetTaskRequest);
  const resultParams = paramsOf('tasks/result', specTypeSchemas.GetTaskPayloadRequest);
  const cancelParams = paramsOf('tasks/cancel', specTypeSchemas.CancelTaskRequest);
  const listParams = optionalParamsOf('tasks/list', specTypeSchemas.ListTasksRequest);

  inner.setRequestHandler('tasks/get', { params: getParams }, async ({ taskId }, ctx) => toMcpTask(await found(tasks.get(taskId, callOf(ctx).caller), taskId)));

  inner.setRequestHandler('tasks/result', { params: resultParams }, async ({ taskId }, ctx) => {
    const task = await found(tasks.settled(taskId, callOf(ctx).caller, ctx.mcpReq.signal), taskId);
    const result = await resultOf(task, taskTools);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });

  // The caller's own tasks, newest first; `nextCursor` is the last task of the page (opaque to the client).
  inner.setRequestHandler('tasks/list', { params: listParams }, async (params, ctx) => {
    const cursor = params?.cursor;
    const page = await tasks.list(callOf(ctx).caller, cursor);
    if (!page) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor ${JSON.stringify(cursor)}: it names no task of yours (it may have expired).`, { error: 'invalid_cursor', status: 400 });
    return { tasks: page.tasks.map(toMcpTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });

  inner.setRequestHandler('tasks/cancel', { params: cancelParams }, async ({ taskId }, ctx) => {
    const before = await found(tasks.get(taskId, callOf(ctx).caller), taskId);
    if (before.status !== 'working') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} has already ended (${before.status}): it cannot be cancelled.`, { error: 'task_not_cancelable', status: 409 });
    return toMcpTask(await found(tasks.cancel(taskId, callOf(ctx).caller), taskId));
  });
}

/** A `tools/call` request as the SDK hands it to its handler. */
export type ToolsCallRequest = { params: { name: string; arguments?: Record<string, unknown>; task?: unknown; _meta?: Record<string, unknown> } };

/** How one protocol revision starts a task on `tools/call` (see interceptTaskCalls). */
export interface TaskCallPolicy {
  /** True when the client asked for, or accepts, a task on this call. */
  wanted(request: ToolsCallRequest, ctx: ServerContext): boolean;
  /** The TTL the client asked for, if any (capped by `capabilityTasks.ttlMs`). */
  ttlMs?(request: ToolsCallRequest, ctx: ServerContext): number | undefined;
  /** The revision's answer to a call that started `task`. */
  answer(task: CapabilityTaskDocument): unknown;
}

/**
 * Starts a task on the `tools/call` requests `policy` wants for the tools whose capability runs as
 * a task; any other call reaches the SDK's own handler. The SDK's `McpServer` owns `tools/call`;
 * its handler is kept and asked for every call that is not a task, by wrapping the handler it
 * registers. Call this before the server declares `tools` or registers a tool (either makes the SDK
 * register its handler).
 */
export function interceptTaskCalls(server: McpServer, tasks: CapabilityTasks, taskTools: ReadonlyMap<string, McpTaskTool>, policy: TaskCallPolicy): void {
  const inner = server.server;
  const set = inner.setRequestHandler.bind(inner) as (method: string, ...rest: unknown[]) => void;
  type ToolsCall = (request: ToolsCallRequest, ctx: ServerContext) => Promise<unknown>;
  (inner as { setRequestHandler: (method: string, ...rest: unknown[]) => void }).setRequestHandler = (method: string, ...rest: unknown[]) => {
    if (method !== 'tools/call' || typeof rest[0] !== 'function') return set(method, ...rest);
    const plain = rest[0] as ToolsCall;
    const call: ToolsCall = async (request, ctx) => {
      const tool = taskTools.get(request.params.name);
      if (!tool || !policy.wanted(request, ctx) || !tasks.isTask(tool.capabilityId)) return plain(request, ctx);
      const checked = await tool.input['~standard'].validate(request.params.arguments ?? {});
      if (checked.issues) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Input validation error: Invalid arguments for tool ${request.params.name}: ${issuesText(checked.issues)}`);
      const { caller } = callOf(ctx);
      // A call the host's approval rule holds runs plainly: it waits for a person, not in the background.
      if (!tasks.runsAsTask(tool.capabilityId, checked.value, caller)) return plain(request, ctx);
      return policy.answer(await tasks.start(tool.capabilityId, checked.value, caller, policy.ttlMs?.(request, ctx)));
    };
    return set(method, call);
  };
}

/** The tool result of an ended task: the capability's answer as a plain call gives it (its output checked), or our error. */
export async function resultOf(task: CapabilityTaskDocument, taskTools: ReadonlyMap<string, McpTaskTool>): Promise<CallToolResult> {
  if (task.status !== 'completed' || !task.result) {
    const error = task.error ?? { status: 500, error: 'internal_error', message: 'The task ended without a result.' };
    return toolError(error.message, error.error, error.status);
  }
  const tool = [...taskTools.values()].find((t) => t.capabilityId === task.capability);
  return checkResult(toToolResult({ ok: true, status: task.result.status, body: task.result.body }, tool?.structured), tool?.output, task.capability);
}

export async function found(task: Promise<CapabilityTaskDocument | undefined>, taskId: string): Promise<CapabilityTaskDocument> {
  const value = await task;
  if (!value) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${taskId}: it is unknown, expired, or another caller's.`, { error: 'task_not_found', status: 404 });
  return value;
}

/** A request's params schema from the SDK's schema of the whole request. */
function paramsOf<P extends { taskId: string }>(method: string, request: StandardSchemaV1<unknown, { params: P }>): StandardSchemaV1<unknown, P> {
  return {
    '~standard': {
      version: 1,
      vendor: 'nestjs-restap',
      validate: async (params: unknown) => {
        const checked = await request['~standard'].validate({ method, params });
        return checked.issues ? { issues: checked.issues } : { value: checked.value.params };
      },
    },
  };
}

/** A request's optional params schema (`tasks/list` may come without params). */
function optionalParamsOf<P>(method: string, request: StandardSchemaV1<unknown, { params?: P }>): StandardSchemaV1<unknown, P | undefined> {
  return {
    '~standard': {
      version: 1,
      vendor: 'nestjs-restap',
      validate: async (params: unknown) => {
        const checked = await request['~standard'].validate(params === undefined ? { method } : { method, params });
        return checked.issues ? { issues: checked.issues } : { value: checked.value.params };
      },
    },
  };
}

/** The `ttl` a 2025-11-25 `tools/call` asks its task be kept (`params.task.ttl`), if any. */
function ttlAsked(task: unknown): number | undefined {
  const ttl = (task as { ttl?: unknown } | undefined)?.ttl;
  return typeof ttl === 'number' ? ttl : undefined;
}

