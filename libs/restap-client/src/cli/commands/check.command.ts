import { parseArgs } from 'node:util';
import { CONFORMANCE_CHECKS } from '../../check/checks';
import { formatReportHeader, formatReportRow, formatSummary } from '../../check/check.report';
import { AUTH_REQUIRED } from '../../check/check.outcome';
import { runConformance } from '../../check/run-conformance';
import { clientOptions, COMMON_OPTIONS, requireUrl, usage } from '../cli.args';
import { EXIT, type CliContext } from '../cli.io';

export const CHECK_USAGE = 'restap check <url> [--json] [--only ID_OR_GROUP]...';

/**
 * `restap check <url>`: the conformance checker. Rows print as each rule finishes (talk probes may
 * wait on an LLM). Exit 1 on any MUST failure, 4 when there is no catalog at all.
 */
export async function checkCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      options: { ...COMMON_OPTIONS, json: { type: 'boolean' }, only: { type: 'string', multiple: true } },
      allowPositionals: true,
    }),
  );
  const url = requireUrl(positionals, CHECK_USAGE);
  const { fetch, headers, timeoutMs } = clientOptions(ctx, values);
  const width = Math.max(...CONFORMANCE_CHECKS.map((c) => c.id.length));
  let rows = 0;
  const report = await runConformance(url, {
    fetch,
    headers,
    timeoutMs,
    only: values.only,
    onResult: values.json
      ? undefined
      : (result) => {
          // The header waits for the first row so an unreachable agent prints only the error.
          // Rules refused for want of credentials are said once, at the end, not row by row.
          if (result.detail === AUTH_REQUIRED) return;
          if (rows++ === 0) ctx.print(`${ctx.out.bold(`RESTAP conformance of ${url}`)}\n${formatReportHeader(width, ctx.out)}`);
          ctx.print(formatReportRow(result, width, ctx.out));
        },
  });
  if (values.json) {
    ctx.print(JSON.stringify(report, null, 2));
  } else {
    ctx.print();
    if (report.auth_required) {
      const refused = report.results.filter((r) => r.detail === AUTH_REQUIRED).length;
      ctx.print(ctx.out.fail(`authentication required: the agent answered 401, so ${refused} rule${refused === 1 ? ' was' : 's were'} not checked. Run again with --header 'Authorization: Bearer …'.`));
    }
    ctx.print(report.ok ? ctx.out.pass(formatSummary(report)) : ctx.out.fail(formatSummary(report)));
  }
  if (!report.catalog_found) {
    ctx.note(`${url} serves no RESTAP catalog at ${report.catalog_url}: is it a RESTAP agent?`);
    return EXIT.NOT_RESTAP;
  }
  return report.ok ? EXIT.OK : EXIT.FAILURE;
}
