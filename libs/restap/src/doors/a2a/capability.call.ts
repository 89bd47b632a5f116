import { TaskState, type Part } from '@a2a-js/sdk';
import type { RestapCaller } from '../../core/caller';
import type { CapabilityTools } from '../../core/tools/capability-tools';
import { dataPart, textPart, type TaskEvents } from './a2a-events';
import type { ApprovalService } from '../../core/approvals/approval.service';
import type { ApprovalAnswer } from '../../core/approvals/approval.types';
import type { InvocationResult } from '../../core/invoker/invocation-result';
import { hashSessionId } from '../../sessions/session-id';

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
  approvals?: { service: ApprovalService; contextId: string },
  timeoutMs?: number,
): Promise<void> {
  const { capability, arguments: args = {} } = call;
  if (typeof capability !== 'string' || !capability || !args || typeof args !== 'object' || Array.isArray(args)) {
    events.status(TaskState.TASK_STATE_REJECTED, [textPart('A capability call is a data part {"capability": "<skill id>", "arguments": {...}} (arguments an object).')]);
    return;
  }
  if (approvals) {
    const gated = { door: 'a2a' as const, capabilityId: capability, args: args as Record<string, unknown>, sessionHash: hashSessionId(approvals.contextId) };
    const asked = await approvals.service.gate(gated, caller);
    if (asked) {
      const how = `Continue this task with a data part {"approval": {"id": "${asked.id}", "decision": "approve"}} (or "deny") before ${asked.expires_at}.`;
      events.status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart(`Approval needed: ${asked.question} The call has not run. ${how}`), dataPart({ approval: asked })]);
      return;
    }
  }
  publishResult(await tools.callCapability(capability, args, caller, signal, timeoutMs), capability, events, signal);
}

/** The person's answer a message carries: a data part `{"approval": {"id", "decision"}}`. */
export function approvalAnswerOf(parts: readonly Part[]): ApprovalAnswer | 'invalid' | undefined {
  for (const part of parts) {
    const value = part.content?.$case === 'data' ? (part.content.value as unknown) : undefined;
    if (!value || typeof value !== 'object' || Array.isArray(value) || !('approval' in value)) continue;
    const answer = (value as { approval?: unknown }).approval as { id?: unknown; decision?: unknown } | undefined;
    if (!answer || typeof answer.id !== 'string' || (answer.decision !== 'approve' && answer.decision !== 'deny') || Object.keys(answer).length !== 2) return 'invalid';
    return { id: answer.id, decision: answer.decision };
  }
  return undefined;
}

/**
 * Settles an approval asked in this task's context and ends the task: approved, the call runs once
 * with the arguments shown and the approver's credentials (`completed` or `failed`); denied, it
 * never runs (`rejected`). An unknown, decided or expired id is refused (404 / 409 / 410 as `rejected`).
 */
export async function answerApproval(service: ApprovalService, answer: ApprovalAnswer | 'invalid', contextId: string, caller: RestapCaller, events: TaskEvents, signal: AbortSignal): Promise<void> {
  if (answer === 'invalid') {
    events.status(TaskState.TASK_STATE_REJECTED, [textPart('An approval answer is a data part {"approval": {"id": "apr_…", "decision": "approve" | "deny"}}, nothing more.')]);
    return;
  }
  const decided = await service.decide(answer, hashSessionId(contextId), caller);
  if (!decided.approved) {
    await service.run(decided, caller);
    events.status(TaskState.TASK_STATE_REJECTED, [textPart(`Denied: ${decided.record.capability} did not run.`), dataPart({ approval: { id: decided.record.id, decision: 'denied' } })]);
    return;
  }
  publishResult(await service.run(decided, caller, signal), decided.record.capability, events, signal);
}

function publishResult(result: InvocationResult, capability: string, events: TaskEvents, signal: AbortSignal): void {
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
