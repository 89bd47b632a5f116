import type { QueryParams } from '../http/transport';
import type { CallOptions } from '../interfaces/options.interface';
import type { PathParams } from './capability.path';

/** Options of {@link RestapClient.call}. */
export interface CapabilityCallOptions extends CallOptions {
  /** Values of `{name}` placeholders in the endpoint. */
  params?: PathParams;
  /** Query string parameters. */
  query?: QueryParams;
  /** Skip the `output_schema` check (e.g. for a server known to add fields loosely). @default false */
  skipOutputValidation?: boolean;
}
