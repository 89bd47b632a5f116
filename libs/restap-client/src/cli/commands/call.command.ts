import { parseArgs } from 'node:util';
import { RestapClient } from '../../restap.client';
import { clientOptions, COMMON_OPTIONS, jsonOption, keyValues, requireUrl, usage } from '../cli.args';
import { EXIT, UsageError, type CliContext } from '../cli.io';

export const CALL_USAGE = 'restap call <url> <capability-id> [--data JSON] [--param k=v]... [--query k=v]...';

/** `restap call <url> <id>`: validated call of any capability; prints the answer. */
export async function callCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      options: {
        ...COMMON_OPTIONS,
        data: { type: 'string', short: 'd' },
        param: { type: 'string', short: 'p', multiple: true },
        query: { type: 'string', short: 'q', multiple: true },
      },
      allowPositionals: true,
    }),
  );
  const url = requireUrl(positionals, CALL_USAGE);
  const id = positionals[1];
  if (!id) throw new UsageError(`missing <capability-id>. Usage: ${CALL_USAGE}`);
  const body = jsonOption(values.data, 'data');
  const params = keyValues(values.param, 'param');
  const query = keyValues(values.query, 'query');
  const client = await RestapClient.discover(url, clientOptions(ctx, values));
  const result = await client.call(id, body, { params, query, signal: ctx.io.signal });
  ctx.print(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
  return EXIT.OK;
}
