import type { McpDoorOptions } from './mcp.options';
import { fromJsonSchema, ProtocolError, type JsonSchemaType, ProtocolErrorCode, ResourceTemplate, type CallToolResult, type McpServer, type ReadResourceResult, type ServerContext } from '@modelcontextprotocol/server';
import { toErrorBody } from '../kit/http/restap-exception.filter';
import { InvalidSinceException } from '../../exceptions';
import type { NewsService } from '../../core/news/news.service';
import { parseSessionId } from '../../sessions/session-id';
import { SESSION_ID_PATTERN } from '../../restap.constants';
import { toolError, type McpRegistration } from './mcp-capability.tools';
import { callOf } from './mcp-call.context';

/** The news feed as a resource: the newest items (scoped like GET /news). */
export const NEWS_URI = 'restap://news';
/** A page of the feed after a cursor, oldest first, as GET /news?since= answers. */
export const NEWS_PAGE_TEMPLATE = 'restap://news{?since}';
export const NEWS_POST_TOOL = 'news_post';

/**
 * News over MCP. Resources: `restap://news` (the newest items the agent itself would see, oldest
 * first) and `restap://news?since=<ms>` (the next page after a cursor, with the cursor to poll
 * from), both as JSON text and scoped like GET /news: in session scope the session comes from the
 * Restap-Session-Id header — never from the URI, where a secret would be logged and cached. The
 * `news_post` tool stores an item as POST /news does and only acknowledges it: the agent never
 * replies to news. Built once; the session is the header of the request being served, read when a handler runs.
 */
export function newsRegistrations(news: NewsService, options: McpDoorOptions): McpRegistration[] {
  const scope = options.news.scope;
  const sessionNote = scope === 'session' ? ' This agent keeps news per session: send the Restap-Session-Id header.' : '';
  // Items change with every post: a 2026-07-28 client must not serve a read from its cache.
  const cacheHint = { ttlMs: 0, cacheScope: 'private' as const };
  const newestConfig = { title: 'News', description: `The newest news items (informational: the agent never replies to them), oldest first.${sessionNote}`, mimeType: 'application/json', cacheHint };
  const readNewest = async (uri: URL, ctx: ServerContext): Promise<ReadResourceResult> => json(uri.href, { items: await news.forTalk(newsSession(scope, ctx)) });
  const pageConfig = { title: 'News since a cursor', description: `News items newer than since (ms), oldest first, with the timestamp to read from next.${sessionNote}`, mimeType: 'application/json', cacheHint };
  const readPage = async (uri: URL, variables: Record<string, string | string[]>, ctx: ServerContext): Promise<ReadResourceResult> => {
    const since = parseSince(variables.since);
    const page = await news.readItems({ sessionId: newsSession(scope, ctx), since, limit: options.news.defaultLimit });
    return json(uri.href, { items: page.items, timestamp: page.timestamp, has_more: page.hasMore });
  };
  return [
    { register: (server) => void server.registerResource('news', NEWS_URI, newestConfig, readNewest) },
    // A template instance holds only its parsed URI template: one per server, as the SDK expects.
    { register: (server) => void server.registerResource('news-since', new ResourceTemplate(NEWS_PAGE_TEMPLATE, { list: undefined }), pageConfig, readPage) },
    newsPostRegistration(news, options),
  ];
}

function newsPostRegistration(news: NewsService, options: McpDoorOptions): McpRegistration {
  const input = {
    type: 'object',
    properties: {
      type: { type: 'string', minLength: 1, maxLength: options.news.maxTypeLength, description: 'What kind of item, e.g. "reply" or "job.completed".' },
      from: { type: 'string', description: 'Who sends it.' },
      in_reply_to: { type: 'string', description: 'The news_id or job_id it answers.' },
      message: { type: 'string' },
      // Typed (some hosts refuse a property without one): any JSON value, as POST /news takes.
      data: { type: ['object', 'array', 'string', 'number', 'boolean', 'null'], description: 'Any JSON value: details of the item.' },
      session_id: { type: 'string', pattern: SESSION_ID_PATTERN.source, description: 'The session the item belongs to (or the Restap-Session-Id header).' },
    },
    required: ['type'],
  };
  const config = {
    title: 'Send news to the agent',
    description: 'Stores a message for the agent (a reply from another agent, a job result). The agent may act on it but never replies: the answer is only an acknowledgement.',
    inputSchema: fromJsonSchema<Record<string, unknown>>(input as JsonSchemaType),
    annotations: { title: 'Send news to the agent', readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  };
  const handler = async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> => {
    try {
      const { session_id: given, ...body } = args;
      const sessionId = given === undefined ? callOf(ctx).sessionId : parseSessionId(given);
      const ack = await news.receive({ body, sessionId, idempotencyKey: undefined });
      return { content: [{ type: 'text', text: JSON.stringify(ack) }], structuredContent: { ...ack } };
    } catch (error) {
      const { status, body } = toErrorBody(error);
      return toolError(body.message, body.error, status);
    }
  };
  return { tool: NEWS_POST_TOOL, register: (server) => void server.registerTool(NEWS_POST_TOOL, config, handler) };
}

/** The session a news read addresses (the request's header); session scope without one is refused like GET /news (missing_session_id). */
function newsSession(scope: 'global' | 'session', ctx: ServerContext): string | undefined {
  const call = callOf(ctx);
  if (call.sessionId === undefined && scope === 'session') {
    // A read has no tool result to carry a refusal: it is the read's JSON-RPC error, saying what to send.
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'missing_session_id: this agent keeps news per session: send the Restap-Session-Id header.', { error: 'missing_session_id' });
  }
  return call.sessionId;
}

function parseSince(value: string | string[] | undefined): number {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid_since: ${new InvalidSinceException().message}`, { error: 'invalid_since' });
  }
  return Number(raw);
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] };
}
