import { parseArgs } from 'node:util';
import type { NewsItem } from '../../interfaces/news.interface';
import { RestapClient } from '../../restap.client';
import { clientOptions, COMMON_OPTIONS, intOption, jsonOption, requireUrl, usage } from '../cli.args';
import { EXIT, UsageError, type CliContext } from '../cli.io';

export const NEWS_USAGE = 'restap news <url> [--since MS] [--limit N] [--wait S] [--follow] [--session ID] [--json]';
export const NEWS_POST_USAGE =
  'restap news post <url> --type T [--message M] [--from F] [--in-reply-to X] [--data JSON] [--session ID] [--idempotency-key K]';

/** `restap news …`: read the feed (once or following it), or `news post` an item. */
export async function newsCommand(args: string[], ctx: CliContext): Promise<number> {
  return args[0] === 'post' ? postCommand(args.slice(1), ctx) : readCommand(args, ctx);
}

async function readCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      options: {
        ...COMMON_OPTIONS,
        since: { type: 'string' },
        limit: { type: 'string' },
        wait: { type: 'string' },
        follow: { type: 'boolean', short: 'f' },
        session: { type: 'string' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
    }),
  );
  const url = requireUrl(positionals, NEWS_USAGE);
  // Options are checked before any request, so a typo is a usage error even when offline.
  // --wait S: long-poll when the agent offers it (--follow uses the agent's maximum unless told; --wait 0: plain polling).
  const query = { since: intOption(values.since, 'since'), limit: intOption(values.limit, 'limit'), wait: intOption(values.wait, 'wait'), sessionId: values.session };
  const client = await RestapClient.discover(url, clientOptions(ctx, values));
  if (values.follow) {
    ctx.note(ctx.err.dim(`following ${client.baseUrl} news… (Ctrl-C to stop)`));
    for await (const item of client.news.follow({ ...query, signal: ctx.io.signal })) {
      ctx.print(values.json ? JSON.stringify(item) : formatItem(item, ctx));
    }
    return EXIT.OK;
  }
  const page = await client.news.list({ ...query, signal: ctx.io.signal });
  if (values.json) {
    ctx.print(JSON.stringify(page, null, 2));
    return EXIT.OK;
  }
  if (page.items.length === 0) ctx.note(ctx.err.dim('no news'));
  for (const item of page.items) ctx.print(formatItem(item, ctx));
  const newest = Math.max(...page.items.map((i) => i.timestamp));
  const next = Number.isFinite(newest) ? ` · next: --since ${newest}` : '';
  ctx.note(ctx.err.dim(`${page.items.length} ${page.items.length === 1 ? 'item' : 'items'}${page.has_more ? ' · more waiting' : ''}${next}`));
  return EXIT.OK;
}

/** `2025-01-01T10:00:00.000Z  reply  from agent-b ↩ query_123: message {data}`. */
export function formatItem(item: NewsItem, ctx: CliContext): string {
  const when = Number.isFinite(item.timestamp) ? new Date(item.timestamp).toISOString() : String(item.timestamp);
  const who = [item.from ? `from ${item.from}` : '', item.in_reply_to ? `↩ ${item.in_reply_to}` : ''].filter(Boolean).join(' ');
  const data = item.data === undefined ? '' : ` ${ctx.out.dim(JSON.stringify(item.data))}`;
  return `${ctx.out.dim(when)}  ${ctx.out.bold(item.type)}${who ? `  ${who}` : ''}${item.message ? `: ${item.message}` : ''}${data}`;
}

async function postCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({
      args,
      options: {
        ...COMMON_OPTIONS,
        type: { type: 'string' },
        message: { type: 'string', short: 'm' },
        from: { type: 'string' },
        'in-reply-to': { type: 'string' },
        data: { type: 'string' },
        session: { type: 'string' },
        'idempotency-key': { type: 'string' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
    }),
  );
  const url = requireUrl(positionals, NEWS_POST_USAGE);
  if (!values.type) throw new UsageError(`--type is required. Usage: ${NEWS_POST_USAGE}`);
  const data = jsonOption(values.data, 'data');
  const client = await RestapClient.discover(url, clientOptions(ctx, values));
  const ack = await client.news.post(
    {
      type: values.type,
      ...(values.message !== undefined ? { message: values.message } : {}),
      ...(values.from !== undefined ? { from: values.from } : {}),
      ...(values['in-reply-to'] !== undefined ? { in_reply_to: values['in-reply-to'] } : {}),
      ...(data !== undefined ? { data } : {}),
    },
    { sessionId: values.session, idempotencyKey: values['idempotency-key'], signal: ctx.io.signal },
  );
  if (values.json) ctx.print(JSON.stringify(ack, null, 2));
  else ctx.print(`stored${ack.news_id ? ` ${ack.news_id}` : ''} ${ctx.out.dim('(news never gets a reply)')}`);
  return EXIT.OK;
}
