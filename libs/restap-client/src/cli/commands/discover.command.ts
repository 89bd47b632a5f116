import { parseArgs } from 'node:util';
import { findNewsRead, findTalk, sessionRequired, sessionsAdvertised, streamingAdvertised } from '../../catalog/catalog.lookup';
import { RestapClient } from '../../restap.client';
import { clientOptions, COMMON_OPTIONS, requireUrl, usage } from '../cli.args';
import { EXIT, type CliContext } from '../cli.io';
import { formatTable } from '../table';

export const DISCOVER_USAGE = 'restap discover <url> [--json]';

/** `restap discover <url>`: who the agent is and what it can do. */
export async function discoverCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({ args, options: { ...COMMON_OPTIONS, json: { type: 'boolean' } }, allowPositionals: true }),
  );
  const client = await RestapClient.discover(requireUrl(positionals, DISCOVER_USAGE), clientOptions(ctx, values));
  const { catalog } = client;
  if (values.json) {
    ctx.print(JSON.stringify(catalog, null, 2));
    return EXIT.OK;
  }
  const { dim, bold } = ctx.out;
  ctx.print(`${bold(catalog.agent.name)}${catalog.agent.description ? ` — ${catalog.agent.description}` : ''}`);
  ctx.print(dim(`RESTAP ${catalog.restap_version} · ${client.catalogUrl}${catalog.agent.contact ? ` · ${catalog.agent.contact}` : ''}`));
  const talk = findTalk(catalog);
  const features = [
    talk ? `talk: ${streamingAdvertised(talk) ? 'JSON + SSE streaming' : 'JSON'}${sessionsAdvertised(talk) ? ', sessions' : ''}` : 'talk: not advertised',
    `news: ${findNewsRead(catalog) ? (sessionRequired(findNewsRead(catalog)) ? 'per session (session_id required)' : 'global') : 'not advertised'}`,
  ];
  ctx.print(dim(features.join(' · ')));
  ctx.print();
  const rows = catalog.capabilities.map((c) => [c.id, c.method.toUpperCase(), c.endpoint, c.title ?? c.description ?? '']);
  formatTable(['ID', 'METHOD', 'ENDPOINT', 'TITLE'], rows).forEach((line, i) => ctx.print(i === 0 ? dim(line) : line));
  const protocols = Object.entries(catalog.protocols ?? {});
  if (protocols.length > 0) {
    ctx.print();
    ctx.print(dim(`protocols: ${protocols.map(([name, p]) => `${name} ${p.available ? `available${p.endpoint ? ` at ${p.endpoint}` : ''}` : 'unavailable'}`).join(', ')}`));
  }
  for (const pkg of catalog.packages ?? []) {
    ctx.print(dim(`package: ${pkg.name} (${pkg.type})`));
    // Agents that serve their own packages write `<agent-url>` in the install line: filled in here.
    if (typeof pkg.install === 'string') ctx.print(dim(`  install: ${pkg.install.split('<agent-url>').join(client.baseUrl.replace(/\/+$/, ''))}`));
  }
  return EXIT.OK;
}
