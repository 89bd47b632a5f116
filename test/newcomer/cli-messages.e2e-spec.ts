import { main } from 'restap-client/cli/main';
import { runConformance } from 'restap-client';
import { AUTH_REQUIRED } from 'restap-client/check/check.outcome';
import { captureIo } from '../client/fixtures/capture';
import { useSampleAgent } from '../support/sample-app';

jest.setTimeout(120_000);

const KEY = 'cli-messages-key-0123456789';

async function run(argv: string[]) {
  const { io, stdout, stderr } = captureIo();
  const code = await main(argv, io);
  return { code, out: stdout.text, err: stderr.text };
}

describe('issue 40 item 9: CLI messages say what to type next', () => {
  const agent = useSampleAgent({ apiKey: KEY });

  it('a 401 suggests --header \'Authorization: Bearer …\'; with the header the call runs', async () => {
    const refused = await run(['call', agent.url, 'notes.list']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/unauthorized \(HTTP 401\)/);
    expect(refused.err).toContain("--header 'Authorization: Bearer …'");
    const allowed = await run(['call', agent.url, 'notes.list', '--header', `Authorization: Bearer ${KEY}`]);
    expect(allowed.code).toBe(0);
  });

  it('a missing path parameter says --param id=…', async () => {
    const missing = await run(['call', agent.url, 'notes.get', '--header', `Authorization: Bearer ${KEY}`]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--param id=…');
  });

  it('one news item is "1 item", two are "2 items"', async () => {
    const post = (type: string) => fetch(`${agent.url}/news`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ type }) });
    await post('first');
    const one = await run(['news', agent.url, '--header', `Authorization: Bearer ${KEY}`]);
    expect(one.err).toMatch(/\b1 item\b(?!s)/);
    await post('second');
    expect((await run(['news', agent.url, '--header', `Authorization: Bearer ${KEY}`])).err).toMatch(/\b2 items\b/);
  });
});

describe('issue 40 item 9: restap check without credentials says "authentication required" once, and never counts a 401 as a pass', () => {
  const agent = useSampleAgent({ apiKey: KEY });

  it('the report: auth_required, not ok, no MUST failure from a 401, and only rules that met no 401 pass (discovery)', async () => {
    const report = await runConformance(agent.url);
    expect(report.auth_required).toBe(true);
    expect(report.ok).toBe(false);
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    const refused = report.results.filter((r) => r.status === 'skip' && r.detail === AUTH_REQUIRED);
    expect(refused.length).toBeGreaterThan(5);
    const passed = report.results.filter((r) => r.status === 'pass');
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.every((r) => r.group === 'discovery' || r.id.startsWith('discovery'))).toBe(true);
  });

  it('with the key the same run is ok; the CLI prints the authentication line once and exits 1 without it', async () => {
    const withKey = await runConformance(agent.url, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(withKey).toMatchObject({ ok: true, auth_required: false });
    const cli = await run(['check', agent.url]);
    expect(cli.code).toBe(1);
    expect(cli.out.match(/authentication required/g)).toHaveLength(1);
    expect(cli.out).toContain("--header 'Authorization: Bearer …'");
  });
});
