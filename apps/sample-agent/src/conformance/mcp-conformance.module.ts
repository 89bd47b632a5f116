import { Module } from '@nestjs/common';
import { McpConformanceController } from './mcp-conformance.controller';

/** The MCP conformance suite's fixtures under /conformance (RESTAP_MCP_CONFORMANCE_FIXTURES=1 only). */
@Module({ controllers: [McpConformanceController] })
export class McpConformanceModule {}
