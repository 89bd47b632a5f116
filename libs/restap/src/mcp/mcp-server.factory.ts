import { Inject, Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server';
import { RESTAP_OPTIONS } from '../restap.constants';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';
import { RestapRegistry } from '../core/registry/restap.registry';
import { CapabilityTools } from '../core/tools/capability-tools';
import { TalkService } from '../core/talk/talk.service';
import { NewsService } from '../core/news/news.service';
import { registerCapabilityTools } from './mcp-capability.tools';
import { registerTalkTool } from './mcp-talk.tool';
import { registerNews } from './mcp-news';
import type { McpCall } from './mcp-call.context';

/** Version reported in serverInfo: this module's protocol surface, not the host app's. */
const SERVER_VERSION = '0.1.0';

/**
 * Builds the `McpServer` that answers one HTTP request (the SDK's per-request factory): every
 * capability as a tool, the `talk` tool, the news resource and `news_post`, all bound to the
 * request's caller. Nothing lives on the instance between requests, so any replica can answer
 * any request. Resource subscriptions are advertised to 2026-07-28 clients only: they receive
 * updates on `subscriptions/listen` streams, while a 2025-era client's per-resource subscription
 * would need a session this stateless endpoint does not keep (it reads the resource instead).
 */
@Injectable()
export class McpServerFactory {
  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly registry: RestapRegistry,
    private readonly tools: CapabilityTools,
    private readonly talk: TalkService,
    private readonly news: NewsService,
  ) {}

  create(era: 'legacy' | 'modern', call: McpCall): McpServer {
    const { agent, talk, news } = this.options;
    const withNews = news.enabled;
    const server = new McpServer(
      { name: agent.name, version: SERVER_VERSION },
      {
        ...(agent.description ? { instructions: agent.description } : {}),
        capabilities: { tools: {}, ...(withNews ? { resources: { subscribe: era === 'modern' } } : {}) },
      },
    );
    registerCapabilityTools(server, this.tools, call.caller);
    if (talk.enabled && this.registry.getTalkHandler()) registerTalkTool(server, this.talk, this.options, call.caller);
    if (withNews) registerNews(server, this.news, this.options, call);
    return server;
  }
}
