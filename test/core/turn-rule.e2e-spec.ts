import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomUUID } from 'node:crypto';
import { RestapModule, Talk, type TalkContext } from 'nestjs-restap';
import { DatabaseModule } from '../../apps/sample-agent/src/database/database.module';
import { listen, type RunningApp } from '../support/sample-app';
import { useTestDatabase } from '../support/test-database';
import { connectModern } from '../mcp/mcp-clients';

jest.setTimeout(120_000);

/** Says how many characters (code points) it was sent. */
@Injectable()
class CountingBrain {
  @Talk()
  answer(ctx: TalkContext): string {
    return `${[...ctx.message].length} characters`;
  }
}

const MAX = 70_000;
const EMOJI = '\u{1F600}';

/** Every string under a `text` key of a JSON value (A2A parts, wherever the answer puts them). */
function textsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => (key === 'text' && typeof v === 'string' ? [v] : textsOf(v)));
}

/**
 * Issue 33: one turn rule in core for every door (RESTAP spec, POST /talk: `message` is the user's
 * text; the module's `talk.maxMessageLength` counts characters as code points). The same message
 * gets the same answer on /talk, MCP's `talk` tool and A2A's text parts.
 */
describe('One turn rule on every door (issue 33)', () => {
  const db = useTestDatabase();
  let agent: RunningApp;

  beforeAll(async () => {
    @Module({
      imports: [
        DatabaseModule.forRoot(db.target),
        RestapModule.forRoot({ agent: { name: 'Turn rule agent' }, talk: { maxMessageLength: MAX }, mcp: { enabled: true }, a2a: { enabled: true } }),
      ],
      providers: [CountingBrain],
    })
    class TurnRuleModule {}
    agent = await listen(await NestFactory.create<NestExpressApplication>(TurnRuleModule, { logger: false }));
  });
  afterAll(() => agent?.close());

  async function viaTalk(message: string): Promise<string> {
    const res = await fetch(`${agent.url}/talk`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ message }) });
    const body = (await res.json()) as { reply?: string; message?: string; error?: string };
    return res.ok ? (body.reply as string) : `${body.error}: ${body.message}`;
  }

  async function viaMcp(message: string): Promise<string> {
    const client = await connectModern(`${agent.url}/mcp`);
    try {
      const result = (await client.callTool({ name: 'talk', arguments: { message } })) as { isError?: boolean; structuredContent?: { reply?: string }; content: Array<{ text?: string }>; _meta?: Record<string, { error?: string }> };
      if (!result.isError) return result.structuredContent?.reply as string;
      const code = Object.values(result._meta ?? {}).find((meta) => typeof meta?.error === 'string')?.error;
      return `${code}: ${result.content.map((c) => c.text).join('')}`;
    } finally {
      await client.close();
    }
  }

  async function viaA2a(message: string): Promise<string[]> {
    const res = await fetch(`${agent.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: message }] } } }),
    });
    const body = (await res.json()) as { result?: unknown; error?: unknown };
    expect(body.error).toBeUndefined();
    return textsOf(body.result);
  }

  it('a 60,000-emoji message (120,000 UTF-16 units) is taken whole on /talk, MCP and A2A, as 60,000 characters', async () => {
    const message = EMOJI.repeat(60_000);
    expect(await viaTalk(message)).toBe('60000 characters');
    expect(await viaMcp(message)).toBe('60000 characters');
    expect(await viaA2a(message)).toContain('60000 characters');
  });

  it('one character over talk.maxMessageLength is refused by every door with the same message', async () => {
    const message = EMOJI.repeat(MAX + 1);
    const refusal = `Field "message" is longer than the ${MAX} characters allowed.`;
    expect(await viaTalk(message)).toBe(`invalid_request: ${refusal}`);
    expect(await viaMcp(message)).toBe(`invalid_request: ${refusal}`);
    expect(await viaA2a(message)).toContain(refusal);
  });

  it('a blank message is refused by every door with the same message', async () => {
    const refusal = 'Field "message" must not be empty or only whitespace.';
    expect(await viaTalk(' \n\t ')).toBe(`invalid_request: ${refusal}`);
    expect(await viaMcp(' \n\t ')).toBe(`invalid_request: ${refusal}`);
    expect(await viaA2a(' \n\t ')).toContain(refusal);
  });
});
