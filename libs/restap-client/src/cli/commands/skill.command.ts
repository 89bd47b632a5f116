import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { RestapClient } from '../../restap.client';
import { renderSkill } from '../../skill/skill.renderer';
import { clientOptions, COMMON_OPTIONS, requireUrl, usage } from '../cli.args';
import { EXIT, type CliContext } from '../cli.io';

export const SKILL_USAGE = 'restap skill <url> [--out FILE]';

/** `restap skill <url>`: a SKILL.md for Claude Code (stdout, or `--out FILE`). */
export async function skillCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({ args, options: { ...COMMON_OPTIONS, out: { type: 'string', short: 'o' } }, allowPositionals: true }),
  );
  const client = await RestapClient.discover(requireUrl(positionals, SKILL_USAGE), clientOptions(ctx, values));
  const markdown = renderSkill(client.catalog, client.baseUrl);
  if (values.out) {
    await writeFile(values.out, markdown, 'utf8');
    ctx.note(ctx.err.dim(`wrote ${values.out}`));
  } else {
    ctx.io.stdout.write(markdown);
  }
  return EXIT.OK;
}
