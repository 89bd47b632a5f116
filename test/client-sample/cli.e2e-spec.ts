import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { main } from 'restap-client/cli/main';
import { captureIo } from '../client/fixtures/capture';
import { useSampleAgent } from '../support/sample-app';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');

/** Runs the CLI in-process with captured stdout/stderr. */
async function run(argv: string[]) {
  const { io, stdout, stderr } = captureIo();
  const code = await main(argv, io);
  return { code, out: stdout.text, err: stderr.text, writes: stdout.writes };
}

describe('restap CLI against the sample agent (real HTTP, PostgreSQL)', () => {
  const agent = useSampleAgent({ newsScope: 'global' });

  it('discover prints the agent, its features, the capability table and the packages', async () => {
    const { code, out } = await run(['discover', agent.url]);
    expect(code).toBe(0);
    expect(out).toContain('Text Analysis Agent — AI agent specialized in text processing and analysis');
    expect(out).toContain('talk: JSON + SSE streaming, sessions · news: global');
    expect(out).toMatch(/text\.echo\s+POST\s+\/text\/echo\s+Echo text back/);
    expect(out).toMatch(/text\.reverse\s+POST\s+\/text\/reverse\s+Reverse text/);
    expect(out).toContain('package: Text Analysis Agent skill (claude-plugin)');
    // issue 40 item 8: an install line that works outside this repository, the agent's URL filled in
    expect(out).toContain(`  install: restap skill ${agent.url} --out ~/.claude/skills/text-analysis-agent/SKILL.md`);
  });

  describe('talk', () => {
    it('streams the reply to stdout delta by delta as it arrives; session_id on stderr', async () => {
      const { code, out, err, writes } = await run(['talk', agent.url, 'What can you do?']);
      expect(code).toBe(0);
      expect(out).toMatch(/^I'm Text Analysis Agent, and I'm running offline/);
      expect(out.endsWith('\n')).toBe(true);
      // One write per word, spread over the ~10 ms-per-word stream rather than printed at the end.
      expect(writes.length).toBeGreaterThan(30);
      expect(writes.at(-1)!.at - writes[0].at).toBeGreaterThan(200);
      expect(err).toMatch(/session_id: [A-Za-z0-9._-]{16,128}\n/);
    });

    it('--session continues the thread; --json prints reply and session_id', async () => {
      const first = await run(['talk', agent.url, 'Hello', '--no-stream']);
      const sessionId = /session_id: (\S+)/.exec(first.err)?.[1] ?? '';
      const second = await run(['talk', agent.url, 'Again', '--session', sessionId, '--json']);
      expect(second.code).toBe(0);
      expect(JSON.parse(second.out)).toMatchObject({ reply: expect.stringContaining('running offline'), session_id: sessionId });
    });
  });

  it('news post stores once per idempotency key, news lists it', async () => {
    const key = `cli-sample-${Date.now()}`;
    const post = ['news', 'post', agent.url, '--type', 'reply', '--message', 'blue', '--from', 'agent-b', '--in-reply-to', 'query_123'];
    const posted = await run([...post, '--idempotency-key', key]);
    expect(posted.code).toBe(0);
    const newsId = /^stored (\S+) \(news never gets a reply\)\n$/.exec(posted.out)?.[1];
    expect(newsId).toBeDefined();
    const replay = await run([...post, '--idempotency-key', key, '--json']);
    expect(JSON.parse(replay.out)).toMatchObject({ status: 'received', news_id: newsId });

    const listed = await run(['news', agent.url, '--json']);
    const items = JSON.parse(listed.out).items as Array<{ news_id: string; type: string }>;
    expect(items.filter((i) => i.news_id === newsId)).toHaveLength(1);
    const text = await run(['news', agent.url]);
    expect(text.out).toMatch(/Z {2}reply {2}from agent-b ↩ query_123: blue\n/);
  });

  describe('call', () => {
    it('calls text.echo and text.reverse with --data and prints the JSON answer', async () => {
      const echo = await run(['call', agent.url, 'text.echo', '--data', '{"text":"Hello World"}']);
      expect(echo.code).toBe(0);
      expect(JSON.parse(echo.out)).toMatchObject({ echoed_text: 'Hello World', job_id: expect.stringMatching(/^job_/) });
      const reverse = await run(['call', agent.url, 'text.reverse', '--data', '{"text":"abc"}']);
      expect(JSON.parse(reverse.out)).toMatchObject({ reversed_text: 'cba' });
    });

    it('exits 2 on input that fails the input_schema, naming the problem', async () => {
      const { code, err, out } = await run(['call', agent.url, 'text.reverse', '--data', '{"text":""}']);
      expect(code).toBe(2);
      expect(err).toMatch(/^restap: Input for text\.reverse does not match its input_schema: .*fewer than 1 character/);
      expect(out).toBe('');
    });
  });

  it('check --only discovery exits 0 and prints the summary', async () => {
    const { code, out } = await run(['check', agent.url, '--only', 'discovery']);
    expect(code).toBe(0);
    expect(out).toMatch(/discovery\.packages-shape\s+MUST\s+pass/);
    expect(out).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n$/);
  });

  it('the restap bin npm links into node_modules/.bin (the npm workspace) runs discover as a real process', async () => {
    const bin = join(ROOT, 'node_modules', '.bin', 'restap');
    expect(existsSync(bin)).toBe(true);
    // Async: the agent answers from this same process.
    const { stdout } = await promisify(execFile)(bin, ['discover', agent.url], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    expect(stdout).toContain('Text Analysis Agent — AI agent specialized in text processing and analysis');
    expect(stdout).toMatch(/text\.echo\s+POST\s+\/text\/echo/);
  });
});
