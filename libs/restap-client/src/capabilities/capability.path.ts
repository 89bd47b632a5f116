import { RestapError } from '../errors/restap.error';

/** Path parameter values for `{name}` placeholders. */
export type PathParams = Record<string, string | number>;

/**
 * Replaces each `{name}` in an endpoint with its encoded value; a missing value is an
 * `invalid_input` rather than a request to a literal `{name}` path.
 */
export function fillPath(endpoint: string, params: PathParams = {}): string {
  const missing: string[] = [];
  const filled = endpoint.replace(/\{([^{}]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) {
      missing.push(name);
      return '';
    }
    return encodeURIComponent(String(value));
  });
  if (missing.length > 0) {
    throw new RestapError('invalid_input', `Missing path parameter(s) ${missing.join(', ')} for ${endpoint} (pass them in params)`, {
      details: missing,
    });
  }
  return filled;
}

/** Names of the `{name}` placeholders of an endpoint. */
export function pathParamNames(endpoint: string): string[] {
  return [...endpoint.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]);
}
