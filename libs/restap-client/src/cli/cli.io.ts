import type { ReportStyle } from '../check/check.report';
import type { FetchLike } from '../interfaces/options.interface';

/** Where the CLI writes: `process.stdout`-like. */
export interface CliOutput {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/**
 * The CLI's whole environment, injectable so tests run `main()` in-process with captured streams.
 *
 * @example
 * await main(['talk', url, 'Say hello'], { stdout, stderr, env: {} });
 */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Lines for the interactive chat. @default process.stdin */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Environment (NO_COLOR). @default process.env */
  env?: Record<string, string | undefined>;
  /** Aborts long-running commands (news --follow, chat, streams). The bin wires it to Ctrl-C. */
  signal?: AbortSignal;
  /** @default globalThis.fetch */
  fetch?: FetchLike;
}

/** Exit codes, documented in the README. */
export const EXIT = {
  OK: 0,
  /** A MUST check failed, or the agent answered with an error. */
  FAILURE: 1,
  /** Bad command line or input. */
  USAGE: 2,
  /** Network error or timeout: the agent could not be reached. */
  UNREACHABLE: 3,
  /** Reached, but no valid RESTAP catalog there. */
  NOT_RESTAP: 4,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

/** A mistake in the command line; printed with a hint to `--help`, exit 2. */
export class UsageError extends Error {}

/** ANSI styling, active only on a TTY and when NO_COLOR is unset (https://no-color.org). */
export interface CliStyle extends ReportStyle {
  bold(text: string): string;
}

export function styleFor(output: CliOutput, env: Record<string, string | undefined>): CliStyle {
  const on = output.isTTY === true && !env.NO_COLOR;
  const wrap = (open: number, close: number) => (text: string) => (on ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { dim: wrap(2, 22), bold: wrap(1, 22), pass: wrap(32, 39), fail: wrap(31, 39) };
}

/** The resolved environment handed to each command. */
export interface CliContext {
  io: CliIo;
  out: CliStyle;
  err: CliStyle;
  /** Writes a line to stdout. */
  print(line?: string): void;
  /** Writes a line to stderr. */
  note(line?: string): void;
}

export function createContext(io: CliIo): CliContext {
  const env = io.env ?? {};
  return {
    io,
    out: styleFor(io.stdout, env),
    err: styleFor(io.stderr, env),
    print: (line = '') => io.stdout.write(`${line}\n`),
    note: (line = '') => io.stderr.write(`${line}\n`),
  };
}
