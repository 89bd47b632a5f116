import { Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE, RESTAP_VERSION, SSE_REQUIRED_EVENTS, RESTAP_OPTIONS, TOOL_EVENTS } from '../../../restap.constants';
import { RestapRegistry, RegisteredCapability } from '../../../core/registry/restap.registry';
import type { CatalogCapability, RestapCatalog } from '../../../interfaces/catalog.interface';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { MAX_NEWS_WAIT_SECONDS } from '../../../core/news/news-request.parser';
import { CapabilityTools } from '../../../core/tools/capability-tools';
import { ApprovalService } from '../../../core/approvals/approval.service';
import { APPROVAL_EXTENSION, APPROVAL_EXTENSION_ENTRY, APPROVAL_REQUIRED_EVENT } from '../../../core/approvals/approval.extension';

/**
 * The discovery document, built once at bootstrap. `bytes` and `etag` are what
 * GET /.well-known/restap.json serves on every request.
 *
 * @example
 * const ids = app.get(CatalogService).getCatalog().capabilities.map((c) => c.id);
 */
@Injectable()
export class CatalogService implements OnApplicationBootstrap {
  private serialized?: { bytes: Buffer; etag: string };

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
    @Optional() private readonly tools?: CapabilityTools,
    @Optional() private readonly approvals?: ApprovalService,
  ) {}

  onApplicationBootstrap(): void {
    this.serialize();
  }

  /** The catalog document (a deep copy: callers cannot change what is served). */
  getCatalog(): RestapCatalog {
    return JSON.parse(this.serialize().bytes.toString('utf8')) as RestapCatalog;
  }

  /** The exact bytes served and their strong ETag. */
  serialize(): { bytes: Buffer; etag: string } {
    if (!this.serialized) {
      const bytes = Buffer.from(JSON.stringify(this.build()), 'utf8');
      const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
      this.serialized = { bytes, etag };
    }
    return this.serialized;
  }

  private build(): RestapCatalog {
    // `protocols`: the option, with the doors served here merged in by the resolver.
    const { agent, packages, protocols } = this.options;
    return {
      restap_version: RESTAP_VERSION,
      agent,
      capabilities: [...this.protocolCapabilities(), ...this.registry.getCapabilities().map((c) => this.describe(c))],
      ...(packages ? { packages } : {}),
      ...(protocols ? { protocols } : {}),
      ...(this.approvalsOnTalk() ? { extensions: { [APPROVAL_EXTENSION]: APPROVAL_EXTENSION_ENTRY } } : {}),
    };
  }

  /** True when /talk can ask for approvals: some capability may need one and the model has tools. */
  private approvalsOnTalk(): boolean {
    const { talk } = this.options;
    return talk.enabled && talk.sessions && talk.tools && (this.tools?.list().length ?? 0) > 0 && this.approvals?.inUse === true;
  }

  /** talk, news and news_receive, advertised only when served. */
  private protocolCapabilities(): CatalogCapability[] {
    const { talk, news } = this.options;
    const { paths } = this.registry;
    const entries: CatalogCapability[] = [];
    if (talk.enabled && paths.talk) {
      entries.push({
        id: 'talk',
        title: talk.title,
        method: 'POST',
        endpoint: paths.talk,
        description: talk.description,
        output_formats: talk.streaming ? [CONTENT_TYPE_JSON, CONTENT_TYPE_SSE] : [CONTENT_TYPE_JSON],
        streaming: talk.streaming
          ? { supported: true, transport: 'sse', events: this.talkEvents() }
          : { supported: false },
        sessions: { supported: talk.sessions },
        ...(talk.resume
          ? {
              'x-restap-resume': {
                method: 'GET',
                endpoint: `${paths.talk.replace(/\/+$/, '')}/{message_id}`,
                on_disconnect: 'continues',
                grace_seconds: Math.round(talk.resume.graceMs / 1000),
              },
            }
          : {}),
      });
    }
    if (news.enabled && paths.news) {
      const sessions = news.scope === 'session' ? { supported: true, required: true } : { supported: true, required: false };
      entries.push(
        {
          id: 'news',
          title: 'Poll for updates',
          method: 'GET',
          endpoint: paths.news,
          description: 'Poll for task completion and updates (read-only; no reply)',
          parameters: [
            { name: 'since', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: 'Only items with a timestamp greater than this (ms): the largest timestamp already seen.' },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: news.maxLimit, default: news.defaultLimit } },
            {
              name: 'wait',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: MAX_NEWS_WAIT_SECONDS },
              description: 'Seconds to hold the poll when nothing is newer than since: it answers as soon as an item commits, else with no items.',
            },
          ],
          sessions,
        },
        {
          id: 'news_receive',
          title: 'Receive replies',
          method: 'POST',
          endpoint: paths.news,
          description: 'Receive messages/replies from other agents (agent may act on them, but never replies)',
          sessions,
        },
      );
    }
    return entries;
  }

  /**
   * The required events, the optional ones the host declared, and `tool.start` / `tool.end`
   * whenever the model has tools (`talk.tools` on and at least one capability offered).
   */
  private talkEvents(): string[] {
    const { talk } = this.options;
    const events = new Set<string>([...SSE_REQUIRED_EVENTS, ...talk.events]);
    if (talk.tools && this.tools?.list().length) for (const event of TOOL_EVENTS) events.add(event);
    if (this.approvalsOnTalk()) events.add(APPROVAL_REQUIRED_EVENT);
    return [...events];
  }

  private describe(capability: RegisteredCapability): CatalogCapability {
    const { options } = capability;
    return {
      id: options.id,
      title: options.title,
      method: capability.method,
      endpoint: capability.endpoint,
      ...(options.description ? { description: options.description } : {}),
      ...(capability.inputSchema ? { input_schema: capability.inputSchema } : {}),
      ...(capability.outputSchema ? { output_schema: capability.outputSchema } : {}),
      ...(capability.parameters ? { parameters: capability.parameters } : {}),
      content_types: [CONTENT_TYPE_JSON],
      ...options.extra,
    };
  }
}
