import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';

/** The checks every options slice shares (the core's in the resolver, each door's beside the door). */

/** Refuses a value that is set (or `required`) and not a positive integer, naming the option. */
export function positiveInt(value: unknown, field: string, required = false): void {
  if ((required || value !== undefined) && (!Number.isInteger(value) || (value as number) <= 0)) {
    throw new RestapBootstrapError(`RestapModule option ${field} must be a positive integer, got ${JSON.stringify(value)}.`);
  }
}

/** Path segments of URL-safe characters; no `.` or `..` segment, no trailing slash (the doors' paths). */
export const DOOR_PATH = /^(\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)+$/;

/** Refuses a door path that is not a `DOOR_PATH`, naming the option and an example. */
export function checkDoorPath(path: unknown, field: string, example: string): asserts path is string {
  if (typeof path !== 'string' || !DOOR_PATH.test(path)) {
    throw new RestapBootstrapError(`RestapModule option ${field} must be a path such as '${example}' (segments of letters, digits, '-', '_', '.', '~'), got ${JSON.stringify(path)}.`);
  }
}

/** A door switched by `{ enabled?, path? }` (the playground, AG-UI): off unless enabled, at `defaultPath`. */
export function resolveDoorSwitch(name: string, value: { enabled?: unknown; path?: unknown } | undefined, defaultPath: string): { enabled: boolean; path: string } {
  if (value !== undefined && (!value || typeof value !== 'object')) {
    throw new RestapBootstrapError(`RestapModule option ${name} must be { enabled?: boolean, path?: string }.`);
  }
  const enabled = value?.enabled ?? false;
  const path = value?.path ?? defaultPath;
  if (typeof enabled !== 'boolean') throw new RestapBootstrapError(`RestapModule option ${name}.enabled must be a boolean.`);
  checkDoorPath(path, `${name}.path`, defaultPath);
  return { enabled, path };
}
