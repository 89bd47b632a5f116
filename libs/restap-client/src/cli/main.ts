import { RestapError } from '../errors/restap.error';
import { EXIT, UsageError, createContext, type CliContext, type CliIo } from './cli.io';
import { commandHelp } from './command-help';
import { CALL_USAGE, callCommand } from './commands/call.command';
import { CHECK_USAGE, checkCommand } from './commands/check.command';
import { DISCOVER_USAGE, discoverCommand } from './commands/discover.command';
import { NEWS_POST_USAGE, NEWS_USAGE, newsCommand } from './commands/news.command';
import { SKILL_USAGE, skillCommand } from './commands/skill.command';
import { TALK_USAGE, talkCommand } from './commands/talk.command';

type Command = (args: string[], ctx: CliContext) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  discover: discoverCommand,
  talk: talkCommand,
  news: newsCommand,
  call: callCommand,
  check: checkCommand,
  skill: skillCommand,
};

const HELP = `restap — RESTAP (REST Agent Protocol) client

Usage:
  ${DISCOVER_USAGE}
  ${TALK_USAGE}
  ${NEWS_USAGE}
  ${NEWS_POST_USAGE}
  ${CALL_USAGE}
  ${CHECK_USAGE}
  ${SKILL_USAGE}

Every command also takes --timeout MS and --header 'Name: value' (repeatable).
"restap <command> --help" (or "restap help <command>") shows a command's options and an example.

Exit codes: 0 ok · 1 MUST check failed or the agent answered an error · 2 usage
            3 agent unreachable · 4 not a RESTAP agent · 130 interrupted`;

/**
 * The `restap` CLI. Returns the exit code instead of exiting so tests can run it in-process.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: string[], io: CliIo = nodeIo()): Promise<number> {
  const ctx = createContext(io);
  const [name, ...rest] = argv;
  // `restap help news` is `restap news --help`.
  if (name === 'help' && rest[0] !== undefined) return main([...rest, '--help'], io);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? ctx.note : ctx.print)(HELP);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  const known = Object.hasOwn(COMMANDS, name);
  const helpName = name === 'news' && rest[0] === 'post' ? 'news post' : name;
  try {
    if (!known) throw new UsageError(`unknown command "${name}"`);
    const beforeEnd = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (beforeEnd.includes('--help') || beforeEnd.includes('-h')) {
      ctx.print(commandHelp(helpName) ?? HELP);
      return EXIT.OK;
    }
    return await COMMANDS[name](rest, ctx);
  } catch (error) {
    return report(error, ctx, known ? helpName : undefined);
  }
}

/** Maps an error to a message on stderr and an exit code. */
function report(error: unknown, ctx: CliContext, command?: string): number {
  const fail = (text: string): void => ctx.note(ctx.err.fail(`restap: ${text}`));
  if (error instanceof UsageError) {
    fail(error.message);
    ctx.note(ctx.err.dim(`Run "restap ${command ? `${command} ` : ''}--help" for usage.`));
    return EXIT.USAGE;
  }
  if (!(error instanceof RestapError)) {
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT.FAILURE;
  }
  switch (error.code) {
    case 'network_error':
    case 'timeout':
      fail(error.message);
      ctx.note(ctx.err.dim('Is the agent running? Check the URL, the port and your network.'));
      return EXIT.UNREACHABLE;
    case 'not_restap':
    case 'invalid_catalog':
      fail(error.message);
      ctx.note(ctx.err.dim('Is this a RESTAP agent? It must serve /.well-known/restap.json.'));
      return EXIT.NOT_RESTAP;
    case 'aborted':
      return EXIT.INTERRUPTED;
    case 'invalid_input':
      fail(error.message);
      if (Array.isArray(error.details) && /^Missing path parameter/.test(error.message)) {
        ctx.note(ctx.err.dim(`Give ${(error.details as string[]).map((name) => `--param ${name}=…`).join(' ')}.`));
      }
      return EXIT.USAGE;
    default:
      fail(`${error.code}${error.status ? ` (HTTP ${error.status})` : ''}: ${error.message}`);
      if (error.status === 401) ctx.note(ctx.err.dim("The agent wants credentials: add --header 'Authorization: Bearer …' (or the header its catalog's auth names)."));
      return EXIT.FAILURE;
  }
}

/** The real process: Ctrl-C aborts the running command once, a second Ctrl-C exits at once. */
export function nodeIo(): CliIo {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
    controller.abort();
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signal: controller.signal };
}
