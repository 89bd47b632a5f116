import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { A2AError, toJsonRpcError } from '@a2a-js/sdk/errors';
import { RESTAP_OPTIONS } from '../../restap.constants';

/** Longest line written for one SDK message, in characters. */
export const SDK_LINE_CHARS = 300;

/** The SDK's server-side files (its server, Express transport and 0.3 compatibility layer): only the door runs them. */
export const SDK_SERVER_FILE = /[\\/]@a2a-js[\\/]sdk[\\/]dist[\\/](?:server|compat[\\/]v0_3[\\/]server)[\\/]/;

/** The console methods the SDK writes with (1.3.0: `error`, `warn`, `info`). */
const METHODS = ['error', 'warn', 'info'] as const;
type Method = (typeof METHODS)[number];

/** JSON-RPC's internal error: an SDK error mapped to anything else is the client's. */
const INTERNAL_ERROR = -32603;

const logger = new Logger('Restap');

/** How many enabled A2A doors share the redirection (apps in one process: tests, several modules). */
let installs = 0;
const originals = new Map<Method, (...args: unknown[]) => void>();
const wrappers = new Map<Method, (...args: unknown[]) => void>();

/**
 * The A2A SDK (`@a2a-js/sdk` 1.3) has no logger option: it writes its errors and warnings with
 * `console.error` / `warn` / `info`, errors with their stacks and the request's own text (a
 * JSON-RPC id, a version header, a task id: whatever length a client sent). While an A2A door is
 * enabled, what the SDK's server files write there goes through Nest's `Logger` ('Restap') instead:
 * one line, control characters and runs of blanks as one space, at most {@link SDK_LINE_CHARS}
 * characters, never a stack, never an object's content (only its kind), and the values the SDK quotes
 * (`'...'`: context ids in its contextId-mismatch error, versions, media types) elided. An error that
 * the SDK answers as the client's (any A2A error but an internal one) is a warning; the rest stays an
 * error. Everything else written to the console passes through unchanged.
 *
 * Why this shape: the door prevents what it can before the SDK (A2aRequestCheck refuses malformed
 * ids, versions and oversized messages itself), so what remains is rare — an unknown task to
 * subscribe to, a store failure. Scoping the redirection to a request would take AsyncLocalStorage,
 * whose first use on Node 20 turns on promise hooks for the whole process (every request of the
 * host would pay); instead each console call asks who called it, with a one-frame stack capture
 * (microseconds), and only console calls pay it: the request path costs nothing more.
 */
@Injectable()
export class A2aSdkLogging implements OnApplicationBootstrap, OnApplicationShutdown {
  private installed = false;

  constructor(@Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions) {}

  onApplicationBootstrap(): void {
    if (!this.options.a2a.enabled || this.installed) return;
    this.installed = true;
    if (installs++ === 0) install();
  }

  onApplicationShutdown(): void {
    if (!this.installed) return;
    this.installed = false;
    if (--installs === 0) uninstall();
  }
}

function install(): void {
  const target = console as unknown as Record<Method, (...args: unknown[]) => void>;
  for (const method of METHODS) {
    const original = target[method];
    const wrapper = function (this: unknown, ...args: unknown[]): void {
      if (calledFromSdk(wrapper)) write(method, args);
      else original.apply(this, args);
    };
    originals.set(method, original);
    wrappers.set(method, wrapper);
    target[method] = wrapper;
  }
}

function uninstall(): void {
  const target = console as unknown as Record<Method, (...args: unknown[]) => void>;
  for (const method of METHODS) {
    // Someone who replaced it since (a test's spy) keeps theirs.
    if (target[method] === wrappers.get(method)) target[method] = originals.get(method) as (...args: unknown[]) => void;
  }
  originals.clear();
  wrappers.clear();
}

/** True when the function that called `callee` is in one of the SDK's server files. */
function calledFromSdk(callee: (...args: unknown[]) => void): boolean {
  const limit = Error.stackTraceLimit;
  const holder: { stack?: string } = {};
  try {
    Error.stackTraceLimit = 1;
    Error.captureStackTrace(holder, callee);
    return SDK_SERVER_FILE.test(holder.stack ?? '');
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function write(method: Method, args: unknown[]): void {
  const line = sdkLine(args);
  if (method === 'info') logger.log(line);
  else if (method === 'warn' || args.some(isClientError)) logger.warn(line);
  else logger.error(line);
}

/** Longest part of a line one argument of the SDK's call takes: a long request id leaves room for the error. */
const ARG_CHARS = 140;

/**
 * One SDK console call as one log line (see {@link A2aSdkLogging}). Quoted values are elided before
 * anything is cut (a cut could halve a quote and leave the rest of its value bare).
 */
export function sdkLine(args: unknown[]): string {
  const text = `A2A SDK: ${args.map((arg) => cut(oneLine(describe(arg)), ARG_CHARS)).join(' ')}`;
  return cut(text, SDK_LINE_CHARS);
}

const oneLine = (text: string): string => text.replace(/'[^']*'/g, "'…'").replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** An argument as text: a string as is, an error as `Name: message` (no stack), anything else by its kind. */
function describe(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  if (arg instanceof Error) return `${arg.name}: ${arg.message}`;
  if (arg === null || typeof arg !== 'object') return String(arg);
  return `[${(arg as object).constructor?.name ?? 'object'}]`;
}

const isClientError = (arg: unknown): boolean => arg instanceof A2AError && toJsonRpcError(arg).code !== INTERNAL_ERROR;
