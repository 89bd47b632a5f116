import type { ParseArgsConfig } from 'node:util';
import type { RestapClientOptions } from '../interfaces/options.interface';
import type { CliContext } from './cli.io';
import { UsageError } from './cli.io';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  timeout: { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/**
 * Runs a node:util `parseArgs` call, turning its errors (unknown option, missing value) into
 * usage errors. Commands call parseArgs themselves so its inferred `values` type stays precise.
 */
export function usage<R>(parse: () => R): R {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A non-negative integer option. */
export function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

/** `--data '{"text":"hi"}'`. */
export function jsonOption(value: string | undefined, name: string): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new UsageError(`--${name} must be JSON, got ${value}`);
  }
}

/** Repeated `--param k=v` into an object. */
export function keyValues(values: string[] | undefined, name: string): Record<string, string> | undefined {
  if (!values || values.length === 0) return undefined;
  const result: Record<string, string> = {};
  for (const pair of values) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--${name} expects key=value, got "${pair}"`);
    result[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return result;
}

/** Client options from the common flags (`--timeout`, `--header 'Name: value'`). */
export function clientOptions(ctx: CliContext, values: { timeout?: string; header?: string[] }): RestapClientOptions {
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const at = header.indexOf(':');
    if (at <= 0) throw new UsageError(`--header expects "Name: value", got "${header}"`);
    headers[header.slice(0, at).trim()] = header.slice(at + 1).trim();
  }
  return { fetch: ctx.io.fetch, headers, timeoutMs: intOption(values.timeout, 'timeout'), signal: ctx.io.signal };
}

/** The first positional, which must be the agent URL. */
export function requireUrl(positionals: string[], usage: string): string {
  const url = positionals[0];
  if (!url) throw new UsageError(`missing <url>. Usage: ${usage}`);
  return url;
}
