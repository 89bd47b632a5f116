import { CATALOG_PATH } from 'nestjs-restap';
import { useSampleAgent } from '../support/sample-app';
import { CLIENT_KINDS, connectClient, type AnyClient } from './mcp-clients';

// Issue 15: the sample's capabilities, talk and news over MCP, for both protocol eras.
jest.setTimeout(60_000);

const API_KEY = 'mcp-e2e-key-0123456789';
const AUTH = { Authorization: `Bearer ${API_KEY}` };

describe('MCP door on the sample agent', () => {
  const agent = useSampleAgent({ apiKey: API_KEY });
  let catalog: { capabilities: Array<{ id: string; input_schema?: unknown; output_schema?: unknown }>; protocols: Record<string, { available: boolean; endpoint?: string }> };
  let endpoint: string;

  beforeAll(async () => {
    catalog = await (await fetch(`${agent.url}${CATALOG_PATH}`)).json();
    endpoint = `${agent.url}${catalog.protocols.mcp.endpoint}`;
  });

  it('discovery advertises protocols.mcp = {available: true, endpoint: "/mcp"}', () => {
    expect(catalog.protocols.mcp).toEqual({ available: true, endpoint: '/mcp' });
  });

  it('one URL serves both eras: the 2.x client in auto mode lands on 2026-07-28, the 1.x client on 2025-11-25', async () => {
    const auto = await connectClient('2.x auto', endpoint, AUTH);
    expect((auto as unknown as { getProtocolEra(): string }).getProtocolEra()).toBe('modern');
    await auto.close();
    const legacy = await connectClient('1.x (2025-11-25)', endpoint, AUTH);
    expect((legacy as unknown as { transport: { protocolVersion?: string } }).transport.protocolVersion).toBe('2025-11-25');
    await legacy.close();
  });

  describe.each(CLIENT_KINDS)('%s client', (kind) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connectClient(kind, endpoint, AUTH);
    });
    afterAll(() => client?.close());

    it('lists every capability as a tool whose inputSchema equals discovery input_schema', async () => {
      const { tools } = await client.listTools();
      for (const id of ['text.echo', 'text.reverse']) {
        const tool = tools.find((t) => t.name === id.replace('.', '_'));
        const capability = catalog.capabilities.find((c) => c.id === id)!;
        expect(tool).toBeDefined();
        expect(tool!.inputSchema).toEqual(capability.input_schema);
        expect(tool!.outputSchema).toEqual(capability.output_schema);
        expect(tool!.annotations).toMatchObject({ title: expect.any(String), readOnlyHint: false });
        expect(tool!._meta).toMatchObject({ 'io.restap/capability': id });
      }
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['talk', 'news_post']));
    });

    it('calls text_reverse through the invoker: structuredContent and text agree', async () => {
      const result = await client.callTool({ name: 'text_reverse', arguments: { text: 'Hello MCP' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ original_text: 'Hello MCP', reversed_text: 'PCM olleH' });
      const [content] = result.content as Array<{ type: string; text: string }>;
      expect(JSON.parse(content.text)).toEqual(result.structuredContent);
    });

    it('bad arguments are a tool error (isError) with the message, not a protocol error', async () => {
      const result = await client.callTool({ name: 'text_echo', arguments: { text: 42 } });
      expect(result.isError).toBe(true);
      const [content] = result.content as Array<{ text: string }>;
      expect(content.text).toMatch(/text/);
      expect(content.text).not.toMatch(/\s+at\s+\S+\s+\(/); // no stack frame
    });

    it('talk answers and continues the same session', async () => {
      const first = await client.callTool({ name: 'talk', arguments: { message: 'Hello there' } });
      expect(first.isError).toBeFalsy();
      const out = first.structuredContent as { reply: string; session_id: string };
      expect(out.reply.length).toBeGreaterThan(0);
      expect(out.session_id).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
      const second = await client.callTool({ name: 'talk', arguments: { message: 'And again', session_id: out.session_id } });
      expect((second.structuredContent as { session_id: string }).session_id).toBe(out.session_id);
    });
  });
});
