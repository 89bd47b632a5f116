import { DynamicModule, Module } from '@nestjs/common';
import { RestapModule } from 'nestjs-restap';
import { DatabaseModule } from './database/database.module';
import { SampleConfig } from './sample.config';
import { LLM_CONFIG } from './brain/llm.config';
import { OfflineResponder } from './brain/offline.responder';
import { BENCH_MODE, SampleBrain } from './brain/sample.brain';
import { TextModule } from './text/text.module';
import { McpConformanceModule } from './conformance/mcp-conformance.module';
import { NotesModule } from './notes/notes.module';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyModule } from './auth/api-key.module';
import { HealthModule } from './health/health.module';
import { PLAYGROUND_PATH } from './playground/root.controller';
import { RootModule } from './playground/root.module';
import { samplePackages } from './sample.packages';
import { PackagesModule } from './packages/packages.module';
import { TelemetryShutdown } from './telemetry/telemetry-shutdown.service';
import { SwaggerDocsModule } from './docs/swagger-docs';

export const AGENT_INFO = {
  name: 'Text Analysis Agent',
  description: 'AI agent specialized in text processing and analysis',
  contact: 'agent@example.com',
};

/** What the LLM is told about itself before every conversation. */
export const SYSTEM_PROMPT =
  'You are the Text Analysis Agent, an AI agent specialized in text processing and analysis. ' +
  'Besides talking, you offer text capabilities over HTTP: POST /text/echo returns a text unchanged and ' +
  'POST /text/reverse returns it reversed; mention them when they help, and call them as tools when asked ' +
  'to echo or reverse a text. You also keep notes (create, list with a filter, get by id, delete, digest) with the notes_* tools: ' +
  'use them when asked to remember, find or forget something, and never delete a note unless asked to. Answer concisely.';

/**
 * The sample RESTAP agent. `AppModule.register(config)` lets tests choose the database. The
 * sample's own routes are feature modules imported after RestapModule: Nest registers routes
 * module by module in import order, so requests for the agent's endpoints meet them first.
 */
@Module({})
export class AppModule {
  static register(config: SampleConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(config.database),
        ApiKeyModule.register(config.apiKey),
        RestapModule.forRoot({
          agent: AGENT_INFO,
          talk: {
            systemPrompt: SYSTEM_PROMPT,
            // Only a model calls tools: offline, the catalog advertises no tool events.
            tools: config.llm !== undefined && !config.bench,
            ...(config.heartbeatMs ? { heartbeatMs: config.heartbeatMs } : {}),
            ...(config.maxStreams ? { maxStreams: config.maxStreams } : {}),
            ...(config.maxStreamsPerClient ? { maxStreamsPerClient: config.maxStreamsPerClient } : {}),
            ...(config.resume ? { resume: true } : {}),
          },
          // Held polls (GET /news?wait=) are open connections too: the same caps as SSE streams.
          news: {
            scope: config.newsScope,
            ...(config.maxStreams ? { maxWaiting: config.maxStreams } : {}),
            ...(config.maxStreamsPerClient ? { maxWaitingPerClient: config.maxStreamsPerClient } : {}),
          },
          packages: samplePackages(config.packagesDir),
          // The A2A door: agent card at /.well-known/agent-card.json, JSON-RPC at /a2a, HTTP+JSON at
          // /a2a/rest, push notifications to public webhooks (and the hosts RESTAP_A2A_PUSH_ALLOW_HOSTS names), behind the same guards.
          a2a: {
            enabled: true,
            pushNotifications: { allowHosts: config.pushAllowHosts ?? [] },
            ...(config.apiKey ? { securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer', description: 'The API key (RESTAP_API_KEY) as a bearer token; X-API-Key works too.' } } } : {}),
          },
          playground: { enabled: config.playground !== false, path: PLAYGROUND_PATH },
          // MCP: stateless for 2026-07-28 clients, sessions (kept in PostgreSQL) for 2025-era ones;
          // with OAuth each session belongs to the subject whose token opened it.
          mcp: { enabled: true, sessions: config.mcpSessions !== false },
          // A person approves what RESTAP_REQUIRE_APPROVAL names (and notes.delete, by its own rule); RESTAP_APPROVAL_STATE_SECRET
          // seals the MCP 2026-07-28 input-required round-trip (the same on every replica).
          ...(config.requireApproval || config.approvalStateSecret
            ? {
                approval: {
                  ...(config.requireApproval ? { require: requireApprovalOf(config.requireApproval) } : {}),
                  ...(config.approvalStateSecret ? { requestStateSecret: config.approvalStateSecret } : {}),
                },
              }
            : {}),
          // Message text and tool arguments in traces only when asked (docs/observability.md).
          ...(config.captureContent ? { telemetry: { captureContent: true } } : {}),
          // The AG-UI door: CopilotKit and other AG-UI front ends run the agent at POST /ag-ui.
          agui: { enabled: config.agui !== false },
          rateLimit: config.rateLimitPerMinute
            ? { limit: config.rateLimitPerMinute, ttlMs: 60_000, ...(config.redisUrl ? { redis: config.redisUrl } : {}) }
            : false,
          // Without RESTAP_API_KEY the guard passes everything: then it is not installed on RESTAP's routes.
          guards: config.apiKey ? [ApiKeyGuard] : [],
          // RESTAP_OAUTH_ISSUER: OAuth 2.1 on every door; reversing text then needs the scope text:reverse (step-up).
          ...(config.oauth ? { auth: { oauth: { ...config.oauth, requiredScopes: { 'text.reverse': ['text:reverse'] } } } } : {}),
          ...(config.shutdownGraceMs ? { shutdownGraceMs: config.shutdownGraceMs } : {}),
          replicas: {
            ...(config.replicaHeartbeatMs ? { heartbeatMs: config.replicaHeartbeatMs } : {}),
            ...(config.orphanAfterMs ? { orphanAfterMs: config.orphanAfterMs } : {}),
          },
        }),
        HealthModule,
        TextModule,
        NotesModule.register(config.notesDigestStepMs ?? 500),
        PackagesModule.register(config.packagesDir),
        ...(config.playground !== false ? [RootModule] : []),
        ...(config.mcpConformanceFixtures ? [McpConformanceModule] : []),
        SwaggerDocsModule,
      ],
      providers: [
        OfflineResponder,
        SampleBrain,
        TelemetryShutdown,
        { provide: BENCH_MODE, useValue: config.bench === true },
        ...(config.llm ? [{ provide: LLM_CONFIG, useValue: config.llm }] : []),
      ],
    };
  }
}

/** `approval.require` of RESTAP_REQUIRE_APPROVAL: every call of a listed capability needs a person's yes. */
function requireApprovalOf(ids: readonly string[]): (capabilityId: string) => boolean {
  const gated = new Set(ids);
  return (capabilityId) => gated.has(capabilityId);
}
