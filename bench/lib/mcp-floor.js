'use strict';
/**
 * The MCP floor: the official SDK alone (`createMcpHandler` on node:http through
 * `@modelcontextprotocol/node`'s `toNodeHandler`, stateless, as the SDK documents it) serving one
 * tool, `text_echo`, with the agent's own input and output schemas (passed in as JSON, read from
 * the agent's catalog) and a handler that answers at once with the sample's fields — no Nest, no
 * module, no database. Run as its own process like the agent: its CPU per `tools/call` is what any
 * MCP server on this SDK pays before it does anything, the figure under issue 19's MCP row.
 */
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { startChildServer } = require('./child-server');

if (require.main === module) {
  const { createMcpHandler, McpServer, fromJsonSchema } = require('@modelcontextprotocol/server');
  const { toNodeHandler } = require('@modelcontextprotocol/node');
  const { inputSchema, outputSchema } = JSON.parse(process.argv[2]);
  const config = { title: 'Echo', inputSchema: fromJsonSchema(inputSchema), outputSchema: fromJsonSchema(outputSchema) };
  // The sample's answer, field for field, so the SDK validates and serialises the same structured content.
  const echo = async ({ text }) => {
    const body = { echoed_text: text, job_id: `job_${randomBytes(9).toString('base64url')}`, original_text: text, timestamp: new Date().toISOString() };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'mcp-floor', version: '0.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('text_echo', config, echo);
    return server;
  });
  const node = toNodeHandler(handler);
  const server = http.createServer((req, res) => void node(req, res));
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
  process.on('message', () => server.close(() => process.exit(0)));
}

/** Starts the floor with the tool's schemas ({ inputSchema, outputSchema }; options as startChildServer's); returns its URL, its CPU so far (ms) and stop(). */
async function startMcpFloor(schemas, options) {
  return startChildServer(__filename, [JSON.stringify(schemas)], options);
}

module.exports = { startMcpFloor };
