import type { McpDoorOptions } from './mcp.options';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpServer, ProtocolError, ProtocolErrorCode, type RegisteredTool, type Tool } from '@modelcontextprotocol/server';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { RestapRegistry } from '../../core/registry/restap.registry';
import { CapabilityTools } from '../../core/tools/capability-tools';
import { ApprovalService } from '../../core/approvals/approval.service';
import { TalkService } from '../../core/talk/talk.service';
import { NewsService } from '../../core/news/news.service';
import { capabilityToolRegistrations, type McpRegistration, type McpTaskTool } from './mcp-capability.tools';
import { talkToolRegistration } from './mcp-talk.tool';
import { NEWS_URI, newsRegistrations } from './mcp-news';
import { McpApprovalRounds } from './mcp-approval.rounds';

/** What a 2025-era session's server does with `resources/subscribe` and `resources/unsubscribe` (see McpLegacySessions). */
export interface McpSessionHooks {
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
}
import { callOf, callOfRequest } from './mcp-call.context';
import { CapabilityTasks } from '../../core/tasks/capability-tasks';
import { enableTasks, TASK_CAPABILITIES } from './mcp-tasks';
import { enableTasksExtension, type TasksExtensionV2 } from './mcp-tasks.extension';

/** Version reported in serverInfo: this module's protocol surface, not the host app's. */
const SERVER_VERSION = '0.1.0';

/**
 * Builds the `McpServer` that answers one HTTP request (the SDK's per-request factory): every
 * capability as a tool, the `talk` tool, the news resource and `news_post`. Their configs,
 * schemas and handlers are built once (the catalog is fixed after bootstrap) and only registered
 * on each request's server; a handler reads the request's caller when it runs (`callOf(ctx)`,
 * bound by the door to the request it hands the SDK). Nothing lives on the instance between requests, so any
 * replica can answer any request. Resource subscriptions are advertised to 2026-07-28 clients only: they receive
 * updates on `subscriptions/listen` streams, while a 2025-era client's per-resource subscription
 * would need a session this stateless endpoint does not keep (it reads the resource instead).
 */
@Injectable()
export class McpServerFactory {
  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: McpDoorOptions,
    private readonly registry: RestapRegistry,
    private readonly tools: CapabilityTools,
    private readonly talk: TalkService,
    private readonly news: NewsService,
    @Optional() private readonly approvals?: ApprovalService,
    @Optional() private readonly tasks?: CapabilityTasks,
  ) {
    const secret = options.approval.requestStateSecret;
    if (approvals && secret) this.rounds = new McpApprovalRounds(secret, options.approval.identify);
  }

  /** The input-required round-trip of approvals (2026-07-28), when `approval.requestStateSecret` is set. */
  private readonly rounds?: McpApprovalRounds;

  private surface?: { all: McpRegistration[]; tools: Map<string, McpRegistration>; scoped: boolean; taskTools: Map<string, McpTaskTool> };

  /**
   * `request` is the HTTP request being served, when the SDK gives it. A 2026-07-28 `tools/call`
   * names its tool in the `Mcp-Method` and `Mcp-Name` headers, which the SDK has checked against
   * the body before it asks for a server: that server gets only the named tool, since nothing
   * else can be reached in the exchange (per-request registration cost then does not grow with
   * the catalog). Everything else gets the whole surface.
   */
  create(era: 'legacy' | 'modern', request?: Request, session?: McpSessionHooks, tasksExtension?: TasksExtensionV2): McpServer {
    const { agent, news } = this.options;
    const withNews = news.enabled;
    // Subscriptions are delivered on 2026-07-28 `subscriptions/listen` streams, and in a 2025-era
    // session on its GET stream; a stateless 2025-era exchange has no channel, so no `subscribe`.
    const subscribe = era === 'modern' || session !== undefined;
    const surface = (this.surface ??= this.build());
    // MCP tasks: 2025-11-25 vocabulary for 2025-era clients.
    const withTasks = era === 'legacy' && surface.taskTools.size > 0 && this.tasks !== undefined;
    // 2026-07-28: the io.modelcontextprotocol/tasks extension, once loaded (see servesTaskTools).
    const withExtension = era === 'modern' && surface.taskTools.size > 0 && this.tasks !== undefined && tasksExtension !== undefined;
    const server = new McpServer(
      { name: agent.name, version: SERVER_VERSION },
      {
        ...(agent.description ? { instructions: agent.description } : {}),
        // listChanged: false — the catalog is fixed after bootstrap, so no list ever changes (the SDK would advertise true).
        // With tasks, `tools` is declared once the tools/call handler can be wrapped (see enableTasks):
        // declared here, the SDK would register its handler in this constructor.
        capabilities: {
          ...(withTasks || withExtension ? {} : { tools: { listChanged: false } }),
          ...(withNews ? { resources: { subscribe, listChanged: false } } : {}),
          // Log notifications reach a 2025-era client on its session (its level kept for every replica).
          ...(session ? { logging: {} } : {}),
          ...(withTasks ? TASK_CAPABILITIES : {}),
        },
        // An echoed requestState is opened (AEAD) and checked before any handler runs; the SDK answers -32602 otherwise.
        ...(this.rounds ? { requestState: { verify: this.rounds.verify } } : {}),
      },
    );
    if (withTasks) enableTasks(server, this.tasks!, surface.taskTools);
    if (withExtension) enableTasksExtension(server, this.tasks!, surface.taskTools, tasksExtension!);
    if (withTasks || withExtension) server.server.registerCapabilities({ tools: { listChanged: false } });
    const only = era === 'modern' ? calledTool(request) : undefined;
    const one = only === undefined ? undefined : surface.tools.get(only);
    const call = surface.scoped ? callOfRequest(request) : undefined;
    const held = call?.method === 'tools/call' ? undefined : call?.caller.auth?.scopes;
    const listed: ScopedTool[] = [];
    for (const registration of one ? [one] : surface.all) {
      // Lists show only what the caller may call; a tools/call keeps every tool, so a scope the
      // token lacks gets the SDK's 403 step-up challenge rather than "unknown tool".
      if (held && registration.scopes?.some((scope) => !held.includes(scope))) continue;
      const tool = registration.register(server);
      if (tool && registration.tool !== undefined) listed.push({ name: registration.tool, tool, scopes: registration.scopes ?? [] });
    }
    // A session's server outlives the request that opened it and serves every later token of its
    // subject (a step-up token has more scopes): its list is judged per request instead.
    if (session && surface.scoped) listPerToken(server, listed);
    if (session && withNews) {
      server.server.setRequestHandler('resources/subscribe', async (req) => {
        await session.subscribe(subscribable(req.params.uri));
        return {};
      });
      server.server.setRequestHandler('resources/unsubscribe', async (req) => {
        await session.unsubscribe(subscribable(req.params.uri));
        return {};
      });
    }
    return server;
  }

  /**
   * True when a 2026-07-28 request's server needs the Tasks extension (loadTasksExtension): some
   * tool's capability runs as a task, and the request is not a `tools/call` naming a tool that does
   * not (its server has that one tool only, so no task can be reached in the exchange).
   */
  servesTaskTools(request?: Request): boolean {
    if (this.tasks === undefined) return false;
    const surface = (this.surface ??= this.build());
    if (surface.taskTools.size === 0) return false;
    const only = calledTool(request);
    return only === undefined || !surface.tools.has(only) || surface.taskTools.has(only);
  }

  /** Built on the first request, after bootstrap has registered every capability and the talk handler. */
  private build(): { all: McpRegistration[]; tools: Map<string, McpRegistration>; scoped: boolean; taskTools: Map<string, McpTaskTool> } {
    const { talk, news } = this.options;
    const all = [
      ...capabilityToolRegistrations(this.tools, this.approvals, this.rounds, this.tasks),
      ...(talk.enabled && this.registry.getTalkHandler() ? [talkToolRegistration(this.talk, this.options, this.rounds)] : []),
      ...(news.enabled ? newsRegistrations(this.news, this.options) : []),
    ];
    return {
      all,
      tools: new Map(all.flatMap((r) => (r.tool === undefined ? [] : [[r.tool, r] as const]))),
      scoped: all.some((r) => r.scopes?.length),
      taskTools: new Map(all.flatMap((r) => (r.tool !== undefined && r.taskTool ? [[r.tool, r.taskTool] as const] : []))),
    };
  }
}

/** A tool registered on a session's server, with the scopes calling it needs. */
interface ScopedTool {
  name: string;
  tool: RegisteredTool;
  scopes: readonly string[];
}

/**
 * `tools/list` of a 2025-era session's server, judged by the token of the request that asks (the
 * caller the door bound to it): a tool whose scopes the token lacks is left out, as on a stateless
 * request. Every tool stays registered, so a call anyway meets the SDK's 403 step-up challenge.
 * The entries are the SDK's own registrations, listed with the fields its `tools/list` gives
 * (the input schema through its public `toolInputSchemaJson`, the output schema through the
 * Standard JSON Schema interface it converts with).
 */
function listPerToken(server: McpServer, tools: readonly ScopedTool[]): void {
  server.server.setRequestHandler('tools/list', (_request, ctx) => {
    const held = callOf(ctx).caller.auth?.scopes;
    const visible = tools.filter(({ tool, scopes }) => tool.enabled && (!held || scopes.every((scope) => held.includes(scope))));
    return { tools: visible.map(({ name, tool }) => listing(server, name, tool)) };
  });
}

function listing(server: McpServer, name: string, tool: RegisteredTool): Tool {
  const outputSchema = tool.outputSchema?.['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  return {
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: server.toolInputSchemaJson(name) as Tool['inputSchema'],
    annotations: tool.annotations,
    icons: tool.icons,
    execution: tool.execution,
    _meta: tool._meta,
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
  };
}

/** The URI of a subscription: the news resource is the one that changes. */
function subscribable(uri: string): string {
  if (uri !== NEWS_URI) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Only ${NEWS_URI} can be subscribed to: it is the resource that changes.`);
  return uri;
}

/** The tool a 2026-07-28 `tools/call` names in its standard headers (validated against the body by the SDK). */
function calledTool(request: Request | undefined): string | undefined {
  if (request?.headers.get('mcp-method') !== 'tools/call') return undefined;
  return request.headers.get('mcp-name') ?? undefined;
}
