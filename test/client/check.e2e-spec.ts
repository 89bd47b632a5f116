import { CONFORMANCE_CHECKS, runConformance, type ConformanceReport } from 'restap-client';
import { main } from 'restap-client/cli/main';
import { captureIo } from './fixtures/capture';
import { startPlainServer } from './fixtures/plain.server';
import { BROKEN_VARIANTS, startFixture, type FixtureOptions } from './fixtures/restap-fixture.server';

async function checkFixture(options: FixtureOptions): Promise<ConformanceReport> {
  const agent = await startFixture(options);
  try {
    return await runConformance(agent.url);
  } finally {
    await agent.close();
  }
}

const failures = (report: ConformanceReport): string[] => report.results.filter((r) => r.status === 'fail').map((r) => r.id);

describe('restap check: compliant fixtures pass every applicable rule', () => {
  it.each<[string, FixtureOptions]>([
    ['streaming, sessions, global news', {}],
    ['session-scoped news', { newsScope: 'session' }],
    ['JSON only (no streaming)', { streaming: false }],
    ['stateless (no sessions)', { sessions: false }],
  ])('%s', async (_name, options) => {
    const report = await checkFixture(options);
    expect(failures(report)).toEqual([]);
    expect(report).toMatchObject({ ok: true, catalog_found: true });
    expect(report.summary.should_failed).toBe(0);
    expect(report.results).toHaveLength(CONFORMANCE_CHECKS.length);
  });

  it('tests optional features only when advertised', async () => {
    const report = await checkFixture({ streaming: false, sessions: false });
    const skipped = report.results.filter((r) => r.status === 'skip').map((r) => r.id);
    expect(skipped).toEqual(expect.arrayContaining(['sse.event-order', 'sessions.rejects-short-id', 'news-session.missing-id-get']));
    expect(report.results.find((r) => r.id === 'negotiation.406-without-streaming')?.status).toBe('pass');
  });
});

describe('restap check: each broken fixture fails the rule it breaks', () => {
  it.each(BROKEN_VARIANTS)('$break → $failingCheck', async ({ options, failingCheck }) => {
    const report = await checkFixture(options);
    expect(report.ok).toBe(false);
    const row = report.results.find((r) => r.id === failingCheck);
    expect(row).toMatchObject({ status: 'fail', level: 'MUST' });
    expect(row?.detail).toBeTruthy();
  });

  it.each(BROKEN_VARIANTS)('CLI exits 1 naming $failingCheck for $break', async ({ options, failingCheck }) => {
    const agent = await startFixture(options);
    try {
      const { io, stdout } = captureIo();
      expect(await main(['check', agent.url], io)).toBe(1);
      expect(stdout.text).toMatch(new RegExp(`${failingCheck.replace(/\./g, '\\.')}\\s+MUST\\s+FAIL\\s+\\S`));
      expect(stdout.text).toMatch(/\d+ passed, [1-9]\d* failed, \d+ skipped \(\d+ MUST failures?\)\n$/);
    } finally {
      await agent.close();
    }
  });

  it('names the real failure once: an unserved stream skips the SSE rules instead of failing them all', async () => {
    const report = await checkFixture({ break: 'streaming-advertised-not-served' });
    expect(failures(report)).toEqual(['negotiation.streams-when-advertised']);
    expect(report.results.find((r) => r.id === 'sse.event-order')).toMatchObject({ status: 'skip', detail: expect.stringContaining('negotiation.streams-when-advertised') });
  });
});

describe('restap check on something that is not a RESTAP agent', () => {
  it('reports the missing catalog and skips the rest', async () => {
    const site = await startPlainServer();
    try {
      const report = await runConformance(site.url);
      expect(report.catalog_found).toBe(false);
      expect(failures(report)).toEqual(['discovery.catalog-json']);
      expect(report.summary.skipped).toBe(CONFORMANCE_CHECKS.length - 1);
    } finally {
      await site.close();
    }
  });

  it('fails the catalog shape rules for a JSON document that is not a catalog', async () => {
    const site = await startPlainServer('bad-catalog');
    try {
      const report = await runConformance(site.url);
      expect(failures(report)).toEqual(expect.arrayContaining(['discovery.restap-version', 'discovery.agent-name', 'discovery.capabilities-shape', 'discovery.talk-advertised']));
    } finally {
      await site.close();
    }
  });
});
