import { CALL_USAGE } from './commands/call.command';
import { CHECK_USAGE } from './commands/check.command';
import { DISCOVER_USAGE } from './commands/discover.command';
import { NEWS_POST_USAGE, NEWS_USAGE } from './commands/news.command';
import { SKILL_USAGE } from './commands/skill.command';
import { TALK_USAGE } from './commands/talk.command';

/** What `restap <command> --help` prints: what it does, its options, an example. */
interface CommandHelp {
  usage: string;
  summary: string;
  options: Array<[flag: string, meaning: string]>;
  examples: string[];
}

const COMMON: Array<[string, string]> = [
  ['--timeout MS', 'give up on a request after MS milliseconds'],
  ["-H, --header 'Name: value'", 'send this header on every request (repeatable), e.g. an API key'],
  ['-h, --help', 'this help'],
];

const HELP: Record<string, CommandHelp> = {
  discover: {
    usage: DISCOVER_USAGE,
    summary: "Reads the agent's catalog (/.well-known/restap.json): who it is, its capabilities, packages and protocols.",
    options: [['--json', 'print the catalog as JSON']],
    examples: ['restap discover http://127.0.0.1:3000'],
  },
  talk: {
    usage: TALK_USAGE,
    summary: 'Sends a message to POST /talk and prints the reply, streamed when the agent offers SSE. Without a message: an interactive chat on stdin that keeps the session.',
    options: [
      ['--session ID', 'continue this session (sent in the Restap-Session-Id header)'],
      ['--no-stream', 'ask for one JSON reply instead of a stream'],
      ['--json', 'with a message: print {reply, session_id, message_id} as JSON'],
    ],
    examples: ['restap talk http://127.0.0.1:3000 "What can you do?"', 'restap talk http://127.0.0.1:3000'],
  },
  news: {
    usage: NEWS_USAGE,
    summary: "Reads the agent's /news feed, oldest first; --follow keeps polling for new items. `restap news post --help` for writing one.",
    options: [
      ['--since MS', 'only items newer than this timestamp (ms), e.g. the last one you saw'],
      ['--limit N', 'at most N items a page'],
      ['--wait S', "hold each poll up to S seconds for the next item, when the agent offers it (--follow uses the agent's maximum; 0: plain polling)"],
      ['-f, --follow', 'keep polling until Ctrl-C (long-polling with wait when the agent offers it)'],
      ['--session ID', "read this session's feed (required when the agent's news is session-scoped)"],
      ['--json', 'print the page as JSON (with --follow: one JSON item a line)'],
    ],
    examples: ['restap news http://127.0.0.1:3000 --follow', 'restap news http://127.0.0.1:3000 --since 1764700000000 --wait 25', 'restap news http://127.0.0.1:3000 --since 1764700000000 --limit 50'],
  },
  'news post': {
    usage: NEWS_POST_USAGE,
    summary: 'Posts an item to POST /news. The agent stores it and may act on it, but never replies.',
    options: [
      ['--type T', 'the item type (required), e.g. task.completed'],
      ['-m, --message M', 'human-readable text'],
      ['--from F', 'who sends it'],
      ['--in-reply-to X', 'the message or job id it answers'],
      ['--data JSON', 'structured payload'],
      ['--session ID', 'post to this session'],
      ['--idempotency-key K', 'a retry with the same key and body is stored once'],
      ['--json', 'print the acknowledgement as JSON'],
    ],
    examples: ['restap news post http://127.0.0.1:3000 --type note --message "Build 42 is green"'],
  },
  call: {
    usage: CALL_USAGE,
    summary: "Calls one capability from the catalog: the input is checked against its input_schema before sending, the answer against its output_schema.",
    options: [
      ['-d, --data JSON', 'the request body'],
      ['-p, --param k=v', 'a {k} placeholder of the endpoint (repeatable)'],
      ['-q, --query k=v', 'a query string parameter (repeatable)'],
    ],
    examples: ['restap call http://127.0.0.1:3000 text.echo --data \'{"text":"Hello World"}\''],
  },
  check: {
    usage: CHECK_USAGE,
    summary: "Runs the conformance checks (every MUST and SHOULD of the spec) against the agent; exits 1 when a MUST fails. Posts two restap.check news items.",
    options: [
      ['--json', 'the machine-readable report'],
      ['--only ID_OR_GROUP', 'run one check or group, e.g. sessions (repeatable)'],
    ],
    examples: ['restap check http://127.0.0.1:3000', 'restap check http://127.0.0.1:3000 --only sessions --json'],
  },
  skill: {
    usage: SKILL_USAGE,
    summary: "Writes a Claude Code skill (SKILL.md) teaching an AI client how to use the agent, from its catalog.",
    options: [['-o, --out FILE', 'write to FILE instead of stdout']],
    examples: ['restap skill http://127.0.0.1:3000 --out SKILL.md'],
  },
};

/** The help of `restap <command>` (`news post` for the writer), or undefined for an unknown command. */
export function commandHelp(command: string): string | undefined {
  const help = HELP[command];
  if (!help) return undefined;
  const rows = [...help.options, ...COMMON];
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `Usage: ${help.usage}`,
    '',
    help.summary,
    '',
    'Options:',
    ...rows.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`),
    '',
    'Example:',
    ...help.examples.map((e) => `  ${e}`),
  ].join('\n');
}
