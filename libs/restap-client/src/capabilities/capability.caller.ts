import { RestapError } from '../errors/restap.error';
import { errorFromResponse, isJsonMediaType, mediaTypeOf, readJson, readText, type Transport } from '../http/transport';
import type { CatalogCapability } from '../interfaces/catalog.interface';
import { CONTENT_TYPE_JSON } from '../restap.constants';
import type { CapabilityCallOptions } from './call.options';
import { fillPath } from './capability.path';
import { formatIssues, type SchemaValidator } from './schema.validator';

const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * Calls one capability: input checked against `input_schema` before anything is sent, endpoint
 * and method from the catalog, JSON answer checked against `output_schema` when there is one.
 */
export async function callCapability(
  transport: Transport,
  validator: SchemaValidator,
  capability: CatalogCapability,
  body: unknown,
  opts: CapabilityCallOptions,
): Promise<unknown> {
  const method = capability.method.toUpperCase();
  const sendsBody = !BODYLESS.has(method);
  if (!sendsBody && body !== undefined) {
    throw new RestapError('invalid_input', `${capability.id} is ${method}: it takes no body (use opts.query / opts.params)`);
  }
  if (sendsBody && capability.input_schema) {
    const issues = validator.validate(`${capability.id}#input`, capability.input_schema, body);
    if (issues.length > 0) {
      throw new RestapError('invalid_input', `Input for ${capability.id} does not match its input_schema: ${formatIssues(issues)}`, {
        details: issues,
      });
    }
  }
  const response = await transport.send({
    method,
    endpoint: fillPath(capability.endpoint, opts.params),
    query: opts.query,
    body: sendsBody ? body : undefined,
    headers: { Accept: CONTENT_TYPE_JSON, ...opts.headers },
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
  });
  if (!response.ok) throw await errorFromResponse(response);
  const isJson = isJsonMediaType(mediaTypeOf(response));
  if (response.status === 204) return undefined;
  const result = isJson ? await readJson(response, opts.timeoutMs ?? transport.timeoutMs) : await readText(response);
  if (isJson && capability.output_schema && !opts.skipOutputValidation) {
    const issues = validator.validate(`${capability.id}#output`, capability.output_schema, result);
    if (issues.length > 0) {
      throw new RestapError(
        'invalid_output',
        `The answer of ${capability.id} does not match its output_schema: ${formatIssues(issues)}`,
        { status: response.status, details: { issues, body: result } },
      );
    }
  }
  return result;
}
