import { TaskState, type Part } from '@a2a-js/sdk';
import type { RestapCaller } from '../../core/caller';
import type { CapabilityTools } from '../../core/tools/capability-tools';
import { dataPart, textPart, type TaskEvents } from './a2a-events';

/** A message's request to run a capability: its data part `{ capability, arguments }`. */
export interface CapabilityCall {
  capability: unknown;
  arguments?: unknown;
}

/** The message's capability call, if one of its data parts names a capability. */
export function capabilityCallOf(parts: readonly Part[]): CapabilityCall | undefined {
  for (const part of parts) {
    const value = part.content?.$case === 'data' ? (part.content.value as unknown) : undefined;
    if (value && typeof value === 'object' && !Array.isArray(value) && 'capability' in value) return value as CapabilityCall;
  }
  return undefined;
}

/**
 * Runs the capability through CapabilityTools, as MCP and the model's tools do — the invoker's
 * pipeline an HTTP call to its route takes (guards with the caller's headers, pipes, interceptors,
 * filters), the path-parameter check and `capabilityTimeoutMs`, no model in between — and ends the
 * task: `completed` with the result as a `result` data artifact, `failed` with the refusal's or
 * the validation's messages, `canceled` when a cancel aborted it, `rejected` for a malformed call.
 */
export async function runCapability(
  tools: CapabilityTools,
  call: CapabilityCall,
  caller: RestapCaller,
  events: TaskEvents,
  signal: AbortSignal,
): Promise<void> {
  const { capability, arguments: args = {} } = call;
  if (typeof capability !== 'string' || !capability || !args || typeof args !== 'object' || Array.isArray(args)) {
    events.status(TaskState.TASK_STATE_REJECTED, [textPart('A capability call is a data part {"capability": "<skill id>", "arguments": {...}} (arguments an object).')]);
    return;
  }
  const result = await tools.callCapability(capability, args, caller, signal);
  if (signal.aborted) {
    events.status(TaskState.TASK_STATE_CANCELED, [textPart(`Canceled: the call to ${capability} was stopped.`)]);
    return;
  }
  if (!result.ok) {
    events.status(TaskState.TASK_STATE_FAILED, [textPart(result.message), dataPart({ status: result.status, error: result.error, message: result.message })]);
    return;
  }
  events.artifact(`${events.taskId}-result`, 'result', [dataPart(result.body)], false, true);
  events.status(TaskState.TASK_STATE_COMPLETED);
}
