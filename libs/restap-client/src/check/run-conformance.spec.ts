import { catalogFixture, fakeFetch, jsonResponse } from '../testing/fake-fetch';
import { formatReport } from './check.report';
import type { CheckDefinition } from './check.types';
import { runConformance } from './run-conformance';

const base = { level: 'MUST', group: 'talk', title: 't', spec: 'quoted spec sentence' } as const;

describe('runConformance', () => {
  const checks: CheckDefinition[] = [
    { ...base, id: 'talk.passes', applies: () => true, run: async () => 'fine' },
    { ...base, id: 'talk.fails', applies: () => true, run: async (ctx) => ctx.fail('broken') },
    { ...base, id: 'talk.skips', level: 'SHOULD', applies: () => false, when: 'something advertised', run: async () => undefined },
    { ...base, id: 'talk.crashes', applies: () => true, run: async () => { throw new Error('bug'); } },
  ];

  it('runs data-driven rules into pass / fail / skip rows and a summary', async () => {
    const fetch = fakeFetch([jsonResponse(catalogFixture())]);
    const seen: string[] = [];
    const report = await runConformance('http://agent.test', { fetch, checks, onResult: (r) => seen.push(r.id) });
    expect(report.results.map((r) => [r.id, r.status, r.detail])).toEqual([
      ['talk.passes', 'pass', 'fine'],
      ['talk.fails', 'fail', 'broken'],
      ['talk.skips', 'skip', 'not applicable: needs something advertised'],
      ['talk.crashes', 'fail', 'unexpected error: bug'],
    ]);
    expect(seen).toHaveLength(4);
    expect(report.summary).toEqual({ passed: 1, failed: 2, skipped: 1, must_failed: 2, should_failed: 0 });
    expect(report.ok).toBe(false);
    expect(formatReport(report).split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped (2 MUST failures)');
  });

  it('filters with only (ids or groups)', async () => {
    const report = await runConformance('http://agent.test', { fetch: fakeFetch([jsonResponse(catalogFixture())]), checks, only: ['talk.passes'] });
    expect(report.results.map((r) => r.id)).toEqual(['talk.passes']);
  });

  it('rejects with network_error when the agent cannot be reached at all', async () => {
    const fetch = fakeFetch([new TypeError('fetch failed')]);
    await expect(runConformance('http://agent.test', { fetch, checks })).rejects.toMatchObject({ code: 'network_error' });
  });
});
