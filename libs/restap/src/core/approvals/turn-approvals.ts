import type { RestapCaller } from '../caller';
import { failure } from '../invoker/invocation-error';
import type { InvocationResult } from '../invoker/invocation-result';
import type { TalkToolApprovals } from '../tools/talk-tools';
import type { ToolDefinition } from '../tools/capability-tools';
import type { ApprovalService } from './approval.service';
import type { ApprovalRequest } from './approval.types';

/**
 * The approvals one /talk turn asks for. A gated tool call is not made: it is parked as a pending
 * approval and the model gets a result saying so. Once every call in flight has answered, the
 * turn should stop (`settled`): the model is not asked again, the person is.
 */
export class TurnApprovals implements TalkToolApprovals {
  readonly asked: ApprovalRequest[] = [];
  /** The model's call id each asked approval holds, by approval id. */
  readonly callIds: Record<string, string> = {};
  private inFlight = 0;

  constructor(
    private readonly service: ApprovalService,
    private readonly caller: RestapCaller,
    /** The session the approval belongs to; none (sessions off): nobody could answer, so it is refused. */
    private readonly sessionHash: Buffer | undefined,
  ) {}

  begin(): void {
    this.inFlight++;
  }

  end(): void {
    this.inFlight--;
  }

  /** True once an approval was asked for and no tool call is still running. */
  get settled(): boolean {
    return this.asked.length > 0 && this.inFlight === 0;
  }

  async gate(tool: ToolDefinition, args: Record<string, unknown>, callId: string): Promise<InvocationResult | undefined> {
    const question = this.service.questionFor(tool.capabilityId, args, this.caller);
    if (question === undefined) return undefined;
    if (!this.sessionHash) {
      return failure(403, 'approval_unavailable', `${tool.capabilityId} needs a person's approval, which needs /talk sessions; it did not run.`);
    }
    const asked = await this.service.gate({ door: 'talk', capabilityId: tool.capabilityId, args, sessionHash: this.sessionHash, toolName: tool.name, toolCallId: callId }, this.caller, question);
    if (!asked) return undefined;
    this.asked.push(asked);
    this.callIds[asked.id] = callId;
    return failure(
      403,
      'approval_required',
      `This call needs a person's approval and has NOT run (approval ${asked.id}): ${asked.question} Do not call it again: the person answers in their next message.`,
    );
  }
}

/** The reply text asking the person, so that a client that knows no `approval.required` still shows it. */
export function approvalQuestionText(asked: readonly ApprovalRequest[]): string {
  const lines = asked.map((a) => `${a.question} (approval ${a.id}, until ${a.expires_at})`);
  const how = 'Answer "approve" or "deny"';
  return asked.length === 1
    ? `Approval needed: ${lines[0]}. ${how}.`
    : `Approvals needed:\n${lines.map((l) => `- ${l}`).join('\n')}\n${how} with the approval's id ({"approval": {"id": "apr_…", "decision": "approve"}}).`;
}
