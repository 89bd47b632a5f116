import type { RestapCatalog } from '../interfaces/catalog.interface';
import type { CheckContext } from './check.context';

/** Requirement level, as written in the spec. */
export type CheckLevel = 'MUST' | 'SHOULD';

/** Groups follow the spec's sections. */
export type CheckGroup = 'discovery' | 'talk' | 'negotiation' | 'sse' | 'sessions' | 'news' | 'news-session' | 'protocols';

/** Outcome of one check. */
export type CheckStatus = 'pass' | 'fail' | 'skip';

/**
 * One rule of the spec, as data. `applies` decides from the catalog alone whether the rule is in
 * scope (optional features are tested only when advertised); `run` throws through `ctx.fail` /
 * `ctx.skip` and may return a detail for a pass.
 *
 * @example
 * const rule: CheckDefinition = {
 *   id: 'talk.json-reply', level: 'MUST', group: 'talk', title: 'JSON reply',
 *   spec: 'application/json … Return a normal complete JSON body',
 *   applies: (catalog) => true,
 *   run: async (ctx) => { … },
 * };
 */
export interface CheckDefinition {
  /** Stable id, `<group>.<rule>`; the CLI and tests name failures by it. */
  id: string;
  level: CheckLevel;
  group: CheckGroup;
  /** Short description for the table. */
  title: string;
  /** The spec sentence the check enforces, quoted. */
  spec: string;
  /** Why a non-applicable check is skipped ("streaming not advertised"). */
  when?: string;
  applies(catalog: RestapCatalog): boolean;
  run(ctx: CheckContext): Promise<string | void>;
}

/** One row of the report. */
export interface CheckResult {
  id: string;
  level: CheckLevel;
  group: CheckGroup;
  title: string;
  spec: string;
  status: CheckStatus;
  detail?: string;
  duration_ms: number;
}

/** Totals of a report. */
export interface ConformanceSummary {
  passed: number;
  failed: number;
  skipped: number;
  must_failed: number;
  should_failed: number;
}

/** What {@link runConformance} returns; `--json` prints it as is. */
export interface ConformanceReport {
  base_url: string;
  catalog_url: string;
  /** False when there was no JSON catalog at all: the URL is probably not a RESTAP agent. */
  catalog_found: boolean;
  /**
   * True when a probe was answered 401: the rules that met it were skipped (never passed), and the
   * report is not ok. Run again with the agent's credentials (`headers`).
   */
  auth_required: boolean;
  /** True when no MUST failed and no probe was refused for want of credentials. */
  ok: boolean;
  summary: ConformanceSummary;
  results: CheckResult[];
}
