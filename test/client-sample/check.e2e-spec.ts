import { formatReport, runConformance, type CheckLevel, type ConformanceReport } from 'restap-client';
import { useSampleAgent } from '../support/sample-app';

jest.setTimeout(120_000);

/** Fails with the whole report (every rule, its result and detail) when a rule of `level` failed. */
function expectNoFailures(report: ConformanceReport, level: CheckLevel): void {
  const failed = report.results.filter((r) => r.status === 'fail' && r.level === level);
  if (failed.length > 0) {
    throw new Error(`${failed.length} ${level} rule(s) failed: ${failed.map((r) => r.id).join(', ')}\n\n${formatReport(report)}`);
  }
}

const statusOf = (report: ConformanceReport, id: string): string | undefined => report.results.find((r) => r.id === id)?.status;

describe.each([
  // Rules that only apply in this scope: they must have run, not been skipped.
  ['global', ['news.requirement-declared', 'news.global-without-session']],
  ['session', ['news-session.missing-id-get', 'news-session.missing-id-post', 'news-session.invalid-id', 'news-session.header-precedence']],
] as const)('restap check against the sample agent, news.scope "%s"', (newsScope, scopeRules) => {
  const agent = useSampleAgent({ newsScope });
  let report: ConformanceReport;

  beforeAll(async () => {
    report = await runConformance(agent.url, { timeoutMs: 30_000 });
  });

  it('passes every MUST rule: zero MUST failures, report.ok', () => {
    expect(report.catalog_found).toBe(true);
    expectNoFailures(report, 'MUST');
    expect(report.ok).toBe(true);
    expect(report.summary.must_failed).toBe(0);
  });

  it('fails no SHOULD rule either', () => {
    expectNoFailures(report, 'SHOULD');
  });

  it('ran the rules of this news scope, the SSE rules and the packages rule instead of skipping them', () => {
    for (const id of [...scopeRules, 'sse.event-order', 'sessions.echo-continues', 'discovery.packages-shape', 'protocols.mcp-answers']) {
      expect([id, statusOf(report, id)]).toEqual([id, 'pass']);
    }
  });
});
