import { resolveDoorSwitch } from '../../core/options/option-checks';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';

/**
 * The AG-UI door (Agent–User Interaction protocol 1.0, `@ag-ui/*`): `POST {path}` takes a
 * `RunAgentInput` and streams the run of the `@Talk()` handler as AG-UI events (SSE, or AG-UI's
 * protobuf encoding when the client asks for it), for CopilotKit and any AG-UI front end. A
 * thread is a RESTAP session: `threadId` is the session_id. Off unless enabled.
 */
export interface RestapAguiOptions {
  /** Serve the AG-UI endpoint (and advertise it in the catalog's `protocols.agui`). @default false */
  enabled?: boolean;
  /** Where, as served (the app's global prefix is not added, as for the catalog). @default '/ag-ui' */
  path?: string;
}

/** What the AG-UI door reads: the core's options and its own slice. */
export type AguiDoorOptions = ResolvedRestapCoreOptions & { agui: Required<RestapAguiOptions> };

/** Validates `agui` and fills in its defaults (the one place they live). */
export function resolveAguiOptions(value: RestapAguiOptions | undefined): Required<RestapAguiOptions> {
  return resolveDoorSwitch('agui', value, '/ag-ui');
}
