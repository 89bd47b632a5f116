import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from 'restap-client/cli/main';
import { captureIo, type CapturedOutput } from './fixtures/capture';
import { deadUrl, startPlainServer } from './fixtures/plain.server';
import { startFixture, type RunningFixture } from './fixtures/restap-fixture.server';

/** Runs the CLI in-process. */
async function run(argv: string[], extra: Parameters<typeof captureIo>[0] = {}) {
  const { io, stdout, stderr } = captureIo(extra);
  const code = await main(argv, io);
  return { code, out: stdout.text, err: stderr.text };
}

describe('restap CLI against the compliant fixture', () => {
  let agent: RunningFixture;
  beforeEach(async () => {
    agent = await startFixture();
  });
  afterEach(() => agent.close());

  it('discover prints the agent and a capability table', async () => {
    const { code, out } = await run(['discover', agent.url]);
    expect(code).toBe(0);
    expect(out).toContain('Fixture Agent — Plain node:http RESTAP fixture for client tests');
    expect(out).toContain('talk: JSON + SSE streaming, sessions · news: global');
    expect(out).toMatch(/ID\s+METHOD\s+ENDPOINT\s+TITLE/);
    expect(out).toMatch(/text\.repeat\s+GET\s+\/text\/repeat\/\{count\}\s+Repeat text/);
    expect(out).toContain('protocols: mcp unavailable');
  });

  describe('talk', () => {
    it('streams deltas to stdout as they arrive, hints dimmed on stderr, session_id on stderr', async () => {
      let stdout: CapturedOutput | undefined;
      let firstDeltaSeenBeforeLast = false;
      const live = await startFixture({
        beforeLastDelta: async () => {
          // The server holds the last chunk until the CLI has printed the first one.
          await stdout?.waitFor('Hello! ');
          firstDeltaSeenBeforeLast = true;
        },
      });
      try {
        const captured = captureIo();
        stdout = captured.stdout;
        const code = await main(['talk', live.url, 'Say hello'], captured.io);
        expect(code).toBe(0);
        expect(firstDeltaSeenBeforeLast).toBe(true);
        expect(captured.stdout.writes.length).toBeGreaterThan(3);
        expect(captured.stdout.text).toBe('Hello! You said: Say hello (turn 1)\n');
        expect(captured.stderr.text).toContain('· thinking');
        expect(captured.stderr.text).toContain('⚙ lookup…');
        expect(captured.stderr.text).not.toContain('x-fixture');
        expect(captured.stderr.text).toMatch(/session_id: sess_[A-Za-z0-9_-]{24}\n/);
      } finally {
        await live.close();
      }
    });

    it('--session continues a thread from an earlier call', async () => {
      const first = await run(['talk', agent.url, 'Say hello']);
      const sessionId = /session_id: (\S+)/.exec(first.err)?.[1] ?? '';
      const second = await run(['talk', agent.url, 'Again', '--session', sessionId]);
      expect(second.out).toBe('Hello! You said: Again (turn 2)\n');
    });

    it('--json prints reply, session_id and message_id', async () => {
      const { code, out } = await run(['talk', agent.url, 'Say hello', '--json']);
      expect(code).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ reply: 'Hello! You said: Say hello (turn 1)', session_id: expect.stringMatching(/^sess_/) });
    });

    it('--no-stream asks for JSON', async () => {
      const { out } = await run(['talk', agent.url, 'Say hello', '--no-stream']);
      expect(out).toBe('Hello! You said: Say hello (turn 1)\n');
      expect(agent.state.requests.at(-1)?.headers.accept).toBe('application/json');
    });

    it('without a message, chats line by line keeping the session', async () => {
      const { code, out, err } = await run(['talk', agent.url], { lines: ['Say hello', '', 'And again', '/new', 'Fresh', '/exit', 'ignored'] });
      expect(code).toBe(0);
      expect(out).toBe('Hello! You said: Say hello (turn 1)\nHello! You said: And again (turn 2)\nHello! You said: Fresh (turn 1)\n');
      expect(err).toContain('new session');
    });
  });

  describe('news', () => {
    it('posts, lists and replays with an idempotency key', async () => {
      const posted = await run(['news', 'post', agent.url, '--type', 'reply', '--message', 'blue', '--from', 'agent-b',
        '--in-reply-to', 'q1', '--data', '{"color":"blue"}', '--idempotency-key', 'k-1']);
      expect(posted).toMatchObject({ code: 0, out: 'stored news_1 (news never gets a reply)\n' });
      const replay = await run(['news', 'post', agent.url, '--type', 'reply', '--message', 'blue', '--idempotency-key', 'k-1', '--json']);
      expect(JSON.parse(replay.out)).toMatchObject({ news_id: 'news_1' });
      expect(agent.state.news).toHaveLength(1);

      const listed = await run(['news', agent.url]);
      expect(listed.out).toMatch(/^\d{4}-\d\d-\d\dT.*Z {2}reply {2}from agent-b ↩ q1: blue \{"color":"blue"\}\n$/);
      expect(listed.err).toContain(`1 item · next: --since ${agent.state.news[0].timestamp}`);
      const since = await run(['news', agent.url, '--since', String(agent.state.news[0].timestamp), '--json']);
      expect(JSON.parse(since.out)).toMatchObject({ items: [], has_more: false });
    });

    it('--follow prints items as they come until interrupted', async () => {
      const controller = new AbortController();
      const { io, stdout } = captureIo({ signal: controller.signal });
      const following = main(['news', agent.url, '--follow', '--json'], io);
      await run(['news', 'post', agent.url, '--type', 'note', '--message', 'first']);
      await stdout.waitFor('first', 3_000);
      controller.abort();
      expect(await following).toBe(0);
      expect(JSON.parse(stdout.text.trim())).toMatchObject({ type: 'note', message: 'first' });
    });
  });

  describe('call', () => {
    it('calls a capability with --data, --param and --query', async () => {
      const echo = await run(['call', agent.url, 'text.echo', '--data', '{"text":"hi"}']);
      expect(JSON.parse(echo.out)).toMatchObject({ echoed_text: 'hi' });
      const repeat = await run(['call', agent.url, 'text.repeat', '--param', 'count=2', '--query', 'text=ab']);
      expect(JSON.parse(repeat.out)).toEqual({ result: 'abab' });
    });

    it('reports input_schema errors (exit 2) without calling', async () => {
      const { code, err } = await run(['call', agent.url, 'text.echo', '--data', '{"txt":"hi"}']);
      expect(code).toBe(2);
      expect(err).toContain("must have required property 'text'");
      expect(agent.state.requests.some((r) => r.url === '/text/echo')).toBe(false);
    });
  });

  it('check passes, printing a table and the summary', async () => {
    const { code, out } = await run(['check', agent.url]);
    expect(code).toBe(0);
    expect(out).toMatch(/sse\.event-order\s+MUST\s+pass\s+message\.start → message\.delta ×\d+ → message\.end → done/);
    expect(out).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n$/);
  });

  it('check --json prints the report', async () => {
    const { code, out } = await run(['check', agent.url, '--json', '--only', 'sessions']);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.ok).toBe(true);
    expect(report.results.every((r: { group: string }) => r.group === 'sessions')).toBe(true);
  });

  it('skill writes a SKILL.md', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'restap-skill-'));
    const file = join(dir, 'SKILL.md');
    const { code, err } = await run(['skill', agent.url, '--out', file]);
    expect(code).toBe(0);
    expect(err).toContain(`wrote ${file}`);
    const skill = await readFile(file, 'utf8');
    expect(skill).toMatch(/^---\nname: fixture-agent\ndescription: ".+"\n---\n/);
    expect(skill).toContain(`curl -sS -X POST '${agent.url}/text/echo'`);
    expect(skill).toContain(`-d '{"text":"Hello world"}'`);
    expect(skill).toContain('never sends a reply');
    expect(skill).toContain('Restap-Session-Id');
  });
});

describe('restap CLI errors and styling', () => {
  it('exit 3 when the agent is unreachable', async () => {
    const { code, err } = await run(['discover', await deadUrl()]);
    expect(code).toBe(3);
    expect(err).toContain('Is the agent running?');
  });

  it('exit 4 for a URL that is not a RESTAP agent, for every command', async () => {
    const site = await startPlainServer();
    try {
      const discover = await run(['discover', site.url]);
      expect(discover.code).toBe(4);
      expect(discover.err).toContain(`No RESTAP catalog at ${site.url}/.well-known/restap.json (HTTP 404)`);
      expect((await run(['check', site.url])).code).toBe(4);
      expect((await run(['talk', site.url, 'hi'])).code).toBe(4);
    } finally {
      await site.close();
    }
  });

  it.each([
    [['frobnicate']],
    [['talk']],
    [['news', 'http://127.0.0.1:1', '--limit', 'ten']],
    [['discover', 'http://127.0.0.1:1', '--bogus']],
    [['call', 'http://127.0.0.1:1']],
    [['news', 'post', 'http://127.0.0.1:1']],
    [['discover', 'not a url']],
  ])('exit 2 for usage errors: %j', async (argv) => {
    const { code, err } = await run(argv);
    expect(code).toBe(2);
    expect(err).toMatch(/^restap: /);
  });

  it('dims with ANSI only on a TTY without NO_COLOR', async () => {
    const agent = await startFixture();
    try {
      const tty = await run(['discover', agent.url], { tty: true, env: {} });
      expect(tty.out).toContain('\u001b[2m');
      const noColor = await run(['discover', agent.url], { tty: true, env: { NO_COLOR: '1' } });
      expect(noColor.out).not.toContain('\u001b[');
      const piped = await run(['discover', agent.url]);
      expect(piped.out).not.toContain('\u001b[');
    } finally {
      await agent.close();
    }
  });
});
