import { resolveDoorSwitch } from '../../core/options/option-checks';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';

/**
 * The playground: a page served by the module to see and try the agent (chat with streaming,
 * capability forms, the news feed, the raw catalog). Its assets are built into the package.
 */
export interface RestapPlaygroundOptions {
  /** Serve the page. @default false */
  enabled?: boolean;
  /** Where, below the app's global prefix. @default '/playground' */
  path?: string;
}

/** What the playground door reads: the core's options and its own slice. */
export type PlaygroundDoorOptions = ResolvedRestapCoreOptions & { playground: Required<RestapPlaygroundOptions> };

/** Validates `playground` and fills in its defaults (the one place they live). */
export function resolvePlaygroundOptions(value: RestapPlaygroundOptions | undefined): Required<RestapPlaygroundOptions> {
  return resolveDoorSwitch('playground', value, '/playground');
}
