import { CAPABILITY_OPTION_KEYS, type CapabilityOptions } from '../../interfaces/capability-options.interface';
import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';

/** Catalog fields `extra` may not override: they identify the capability and where it is served. */
const RESERVED_EXTRA_KEYS = new Set(['id', 'title', 'method', 'endpoint']);

/** Levenshtein distance, to suggest the option a typo meant (`ouput` → `output`). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The options type is closed, but JavaScript callers and casts get past the compiler: an unknown
 * key is a typo or a pass-through field that belongs under `extra`, and stops startup.
 */
export function assertCapabilityOptionKeys(capability: CapabilityOptions, where: string): void {
  const label = `@Capability({ id: '${String(capability.id)}' }) on ${where}`;
  for (const key of Object.keys(capability)) {
    if (Object.hasOwn(CAPABILITY_OPTION_KEYS, key)) continue;
    const near = Object.keys(CAPABILITY_OPTION_KEYS).find((known) => editDistance(known, key) <= (key.length > 4 ? 2 : 1));
    throw new RestapBootstrapError(
      `${label} has an unknown option '${key}'${near ? ` (did you mean '${near}'?)` : ''}. ` +
        `Fields to copy into the catalog entry go under extra, e.g. extra: { ${key}: … }.`,
    );
  }
  const { approval } = capability;
  if (approval !== undefined && typeof approval !== 'boolean' && typeof approval !== 'function') {
    throw new RestapBootstrapError(`${label}: approval must be true, false or a function (args, caller) => boolean | string (the question), got ${typeof approval}.`);
  }
  if (capability.task !== undefined && typeof capability.task !== 'boolean') {
    throw new RestapBootstrapError(`${label}: task must be true or false, got ${typeof capability.task}.`);
  }
  const { extra } = capability;
  if (extra === undefined) return;
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    throw new RestapBootstrapError(`${label}: extra must be an object of catalog fields, e.g. extra: { pricing: { per_call_usd: 0.01 } }.`);
  }
  const reserved = Object.keys(extra).filter((key) => RESERVED_EXTRA_KEYS.has(key));
  if (reserved.length) {
    throw new RestapBootstrapError(
      `${label}: extra cannot set ${reserved.join(', ')}: the catalog derives them (set id and title as options; method and endpoint come from the route).`,
    );
  }
}
