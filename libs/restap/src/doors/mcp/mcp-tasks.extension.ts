import { Logger } from '@nestjs/common';
import type { StandardSchemaV1 } from '@modelcontextprotocol/server';
import { MissingRequiredClientCapabilityError, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { CapabilityTaskDocument, CapabilityTasks } from '../../core/tasks/capability-tasks';
import { callOf } from './mcp-call.context';
import type { McpTaskTool } from './mcp-capability.tools';
import { found, interceptTaskCalls, resultOf, TASK_POLL_INTERVAL_MS } from './mcp-tasks';

/** The Tasks extension's V2 module (`@modelcontextprotocol/ext-tasks/core/v2`): its identifiers, schemas and checks. */
export type TasksExtensionV2 = typeof import('@modelcontextprotocol/ext-tasks/core/v2');

let loading: Promise<TasksExtensionV2 | undefined> | undefined;

/**
 * Loads the Tasks extension (ESM only) on first use, once per process: only when the door serves a
 * 2026-07-28 client and some tool runs as a task. Where it cannot load (a CommonJS runtime that
 * cannot `import()` ESM, such as Jest without VM modules), 2026-07-28 clients call task tools
 * plainly, as before the extension, and one warning says why.
 */
export function loadTasksExtension(): Promise<TasksExtensionV2 | undefined> {
  loading ??= import('@modelcontextprotocol/ext-tasks/core/v2').then(
    (v2) => v2,
    (error: unknown) => {
      new Logger('Restap').warn(`MCP: the Tasks extension (@modelcontextprotocol/ext-tasks) could not be loaded: 2026-07-28 clients call task tools plainly (${(error as Error)?.message ?? String(error)})`);
      return undefined;
    },
  );
  return loading;
}

/**
 * MCP tasks for 2026-07-28 clients: the `io.modelcontextprotocol/tasks` extension (issue 38,
 * item 8), its shapes and checks from the extension's own package. The server declares the
 * extension in its capabilities; a `tools/call` to a tool whose capability runs as a task, from a
 * client that declares the extension on that request, starts the task and answers the
 * CreateTaskResult (`resultType: "task"`). `tasks/get` answers the task with its result inlined once
 * it ended, `tasks/cancel` and `tasks/update` acknowledge; all three read PostgreSQL, so any replica
 * answers, and refuse a client that does not declare the extension (-32021). A capability that
 * refused or failed ends `completed` with the tool error as its result, as the extension wants for
 * errors that are not JSON-RPC errors; no `tasks/result`, no `tasks/list` (not in the extension).
 *
 * Call this before the server declares `tools` or registers a tool (see interceptTaskCalls).
 */
export function enableTasksExtension(server: McpServer, tasks: CapabilityTasks, taskTools: ReadonlyMap<string, McpTaskTool>, v2: TasksExtensionV2): void {
  const inner = server.server;
  inner.registerCapabilities({ extensions: { [v2.TASKS_EXTENSION_ID_V2]: {} } });
  const declares = (ctx: ServerContext): boolean => v2.hasTaskClientCapabilityV2({ _meta: ctx.mcpReq.envelope ?? {} });
  const required = (): MissingRequiredClientCapabilityError =>
    new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [v2.TASKS_EXTENSION_ID_V2]: {} } } }, `Tasks are the ${v2.TASKS_EXTENSION_ID_V2} extension: declare it in the request's client capabilities.`);

  interceptTaskCalls(server, tasks, taskTools, {
    wanted: (_request, ctx) => declares(ctx),
    // The SDK checks every tools/call result against CallToolResult: it adds an empty content.
    answer: (task) => v2.CreateTaskResultV2Schema.parse({ ...taskOf(task), resultType: 'task' }),
  });

  inner.setRequestHandler('tasks/get', { params: paramsOf('tasks/get', v2.GetTaskRequestV2Schema) }, async ({ taskId }, ctx) => {
    if (!declares(ctx)) throw required();
    const task = await found(tasks.get(taskId, callOf(ctx).caller), taskId);
    return v2.DetailedTaskV2Schema.parse(await detailedOf(task, taskTools, v2));
  });

  // Cooperative, as the extension has it: the running call is aborted (here or on its replica) and
  // the task ends `cancelled`; a task that already ended is acknowledged as it stands.
  inner.setRequestHandler('tasks/cancel', { params: paramsOf('tasks/cancel', v2.CancelTaskRequestV2Schema) }, async ({ taskId }, ctx) => {
    if (!declares(ctx)) throw required();
    const { caller } = callOf(ctx);
    const task = await found(tasks.get(taskId, caller), taskId);
    if (task.status === 'working') await tasks.cancel(taskId, caller);
    return {};
  });

  // No capability task ever asks for input: every response names a request that is not outstanding, and is ignored.
  inner.setRequestHandler('tasks/update', { params: paramsOf('tasks/update', v2.UpdateTaskRequestV2Schema) }, async ({ taskId }, ctx) => {
    if (!declares(ctx)) throw required();
    await found(tasks.get(taskId, callOf(ctx).caller), taskId);
    return {};
  });
}

/** A capability task as the extension's Task: a refusal or failure is a tool error, so the task `completed`. */
function taskOf(task: CapabilityTaskDocument) {
  return {
    taskId: task.id,
    status: task.status === 'failed' ? ('completed' as const) : task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.updatedAt,
    ttlMs: task.ttlMs,
    ...(task.status === 'working' ? { pollIntervalMs: TASK_POLL_INTERVAL_MS } : {}),
  };
}

/** The DetailedTask `tasks/get` answers: once ended, the tool result inlined (as a plain call answers, our error if it failed). */
async function detailedOf(task: CapabilityTaskDocument, taskTools: ReadonlyMap<string, McpTaskTool>, v2: TasksExtensionV2): Promise<Record<string, unknown>> {
  const base = taskOf(task);
  if (base.status !== 'completed') return base;
  // The result as the 2026-07-28 wire carries a CallToolResult: with its `resultType`.
  return { ...base, result: v2.CallToolResultV2Schema.parse({ ...(await resultOf(task, taskTools)), resultType: 'complete' }) };
}

/** What a request schema of the extension offers (zod's `safeParse`). */
interface RequestSchema<P> {
  safeParse(value: unknown): { success: true; data: { params: P } } | { success: false; error: { issues: ReadonlyArray<{ message: string; path: PropertyKey[] }> } };
}

/** A request's params checked by the extension's schema of the whole JSON-RPC request. */
function paramsOf<P>(method: string, schema: RequestSchema<P>): StandardSchemaV1<unknown, P> {
  return {
    '~standard': {
      version: 1,
      vendor: 'nestjs-restap',
      validate: (params: unknown) => {
        const checked = schema.safeParse({ jsonrpc: '2.0', id: 0, method, params });
        return checked.success ? { value: checked.data.params } : { issues: checked.error.issues.map((issue) => ({ message: issue.message, path: issue.path.slice(1) })) };
      },
    },
  };
}
