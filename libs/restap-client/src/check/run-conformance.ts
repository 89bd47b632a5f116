import { locateCatalog } from '../catalog/catalog.location';
import { isRecord } from '../catalog/catalog.validator';
import { RestapError } from '../errors/restap.error';
import { createTransport } from '../http/transport';
import type { RestapCatalog } from '../interfaces/catalog.interface';
import type { FetchLike } from '../interfaces/options.interface';
import { CheckContext } from './check.context';
import { CheckFailure, CheckSkipped } from './check.outcome';
import { catalogRequest, sendProbe } from './check.probe';
import type { CheckDefinition, CheckResult, ConformanceReport } from './check.types';
import { CONFORMANCE_CHECKS } from './checks';

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** @default globalThis.fetch */
  fetch?: FetchLike;
  /** Sent on every probe (e.g. `Authorization` for a protected agent). */
  headers?: Record<string, string>;
  /** Deadline of each probe, ms; talk probes may wait on an LLM. @default 60000 */
  timeoutMs?: number;
  /** Rules to run. @default CONFORMANCE_CHECKS */
  checks?: readonly CheckDefinition[];
  /** Run only these check ids or groups (e.g. `['sessions', 'sse.event-order']`). */
  only?: string[];
  /** Called after each check, in order (the CLI prints rows as they finish). */
  onResult?: (result: CheckResult) => void;
}

/**
 * Runs the RESTAP conformance rules against a live agent. Reads the catalog first, tests optional
 * features only when advertised, and fails features that are advertised but broken. Rejects only
 * when the agent cannot be reached at all (`network_error` / `timeout`).
 *
 * @example
 * const report = await runConformance('http://localhost:3000');
 * if (!report.ok) console.log(report.results.filter((r) => r.status === 'fail'));
 */
export async function runConformance(url: string, opts: ConformanceOptions = {}): Promise<ConformanceReport> {
  const location = locateCatalog(url);
  const transport = createTransport(location.baseUrl, opts);
  const { timeoutMs } = transport;

  const catalogProbe = await sendProbe(transport, catalogRequest(location), timeoutMs);
  const found = catalogProbe.status === 200 && isRecord(catalogProbe.json);
  // Possibly malformed: every rule reads it defensively, and discovery.* reports what is wrong.
  const catalog = (found ? catalogProbe.json : {}) as RestapCatalog;
  const ctx = new CheckContext(catalog, location, transport, timeoutMs);
  ctx.prime('catalog', catalogProbe);

  const selected = (opts.checks ?? CONFORMANCE_CHECKS).filter((check) => selectedBy(check, opts.only));
  const results: CheckResult[] = [];
  for (const check of selected) {
    const result = await runOne(check, ctx, found);
    results.push(result);
    opts.onResult?.(result);
  }
  const count = (status: CheckResult['status'], level?: CheckResult['level']): number =>
    results.filter((r) => r.status === status && (level === undefined || r.level === level)).length;
  const summary = {
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
    must_failed: count('fail', 'MUST'),
    should_failed: count('fail', 'SHOULD'),
  };
  const authRequired = ctx.authRequired;
  return {
    base_url: location.baseUrl,
    catalog_url: location.catalogUrl,
    catalog_found: found,
    auth_required: authRequired,
    ok: summary.must_failed === 0 && !authRequired,
    summary,
    results,
  };
}

function selectedBy(check: CheckDefinition, only: string[] | undefined): boolean {
  return !only || only.length === 0 || only.some((o) => check.id === o || check.group === o);
}

async function runOne(check: CheckDefinition, ctx: CheckContext, catalogFound: boolean): Promise<CheckResult> {
  const started = Date.now();
  const row = (status: CheckResult['status'], detail?: string): CheckResult => ({
    id: check.id,
    level: check.level,
    group: check.group,
    title: check.title,
    spec: check.spec,
    status,
    ...(detail ? { detail } : {}),
    duration_ms: Date.now() - started,
  });
  if (!catalogFound && check.id !== 'discovery.catalog-json') return row('skip', 'no catalog');
  try {
    if (!check.applies(ctx.catalog)) return row('skip', `not applicable${check.when ? `: needs ${check.when}` : ''}`);
    const detail = await check.run(ctx);
    return row('pass', detail || undefined);
  } catch (error) {
    if (error instanceof CheckSkipped) return row('skip', error.message);
    if (error instanceof CheckFailure) return row('fail', error.message);
    // A probe that timed out or could not connect is a broken rule, not a crash of the checker.
    if (error instanceof RestapError) return row('fail', `${error.code}: ${error.message}`);
    return row('fail', `unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  }
}
