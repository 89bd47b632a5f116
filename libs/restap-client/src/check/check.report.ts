import type { CheckResult, ConformanceReport } from './check.types';

/** Colouring hooks; the CLI passes ANSI ones, everything else gets plain text. */
export interface ReportStyle {
  dim(text: string): string;
  pass(text: string): string;
  fail(text: string): string;
}

const PLAIN: ReportStyle = { dim: (t) => t, pass: (t) => t, fail: (t) => t };
const DETAIL_WIDTH = 110;
const LABEL: Record<CheckResult['status'], string> = { pass: 'pass', fail: 'FAIL', skip: 'skip' };

/** The header line of the table; `idWidth` is the longest check id. */
export function formatReportHeader(idWidth: number, style: ReportStyle = PLAIN): string {
  return style.dim(`${'ID'.padEnd(idWidth)}  LEVEL   RESULT  DETAIL`);
}

/** One table row. Details are cut to one line here; `--json` keeps them whole. */
export function formatReportRow(result: CheckResult, idWidth: number, style: ReportStyle = PLAIN): string {
  const colour = result.status === 'pass' ? style.pass : result.status === 'fail' ? style.fail : style.dim;
  const detail = (result.detail ?? '').replace(/\s+/g, ' ');
  const cut = detail.length > DETAIL_WIDTH ? `${detail.slice(0, DETAIL_WIDTH - 1)}…` : detail;
  return `${result.id.padEnd(idWidth)}  ${result.level.padEnd(6)}  ${colour(LABEL[result.status].padEnd(6))}  ${style.dim(cut)}`;
}

/** `43 passed, 1 failed, 8 skipped (1 MUST failure)`. */
export function formatSummary(report: ConformanceReport): string {
  const { passed, failed, skipped, must_failed } = report.summary;
  const musts = must_failed > 0 ? ` (${must_failed} MUST failure${must_failed === 1 ? '' : 's'})` : '';
  return `${passed} passed, ${failed} failed, ${skipped} skipped${musts}`;
}

/**
 * The whole report as a text table plus summary line.
 *
 * @example
 * console.log(formatReport(await runConformance(url)));
 */
export function formatReport(report: ConformanceReport, style: ReportStyle = PLAIN): string {
  const width = Math.max(2, ...report.results.map((r) => r.id.length));
  const rows = report.results.map((r) => formatReportRow(r, width, style));
  return [formatReportHeader(width, style), ...rows, '', formatSummary(report)].join('\n');
}
