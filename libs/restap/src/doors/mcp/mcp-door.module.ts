import { Module } from '@nestjs/common';
import { McpDoor } from './mcp.door';
import { McpNewsNotifier } from './mcp-news.notifier';
import { McpServerFactory } from './mcp-server.factory';
import { McpLegacySessions } from './mcp-legacy.sessions';
import { McpSessionStore } from './mcp-session.store';

/**
 * The MCP door (`mcp` option): imported by RestapModule only when the door may open, so a host
 * without it never loads `@modelcontextprotocol/*`. It uses the core and the kit through
 * RestapModule's exports.
 */
@Module({ providers: [McpNewsNotifier, McpServerFactory, McpSessionStore, McpLegacySessions, McpDoor] })
export class McpDoorModule {}
