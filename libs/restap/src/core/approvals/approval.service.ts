import { Inject, Injectable, Logger } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { ApprovalDecidedException, ApprovalExpiredException, ApprovalMismatchException, ApprovalNotFoundException, RestapException } from '../../exceptions';
import type { ToolCallGate } from '../tools/capability-tools';
import { RESTAP_APPROVAL_STORE, type ApprovalRecord, type ApprovalStore } from '../../persistence/approval.store';
import { randomToken } from '../../sessions/random-token';
import type { RestapCaller } from '../caller';
import { CapabilityTools } from '../tools/capability-tools';
import type { InvocationResult } from '../invoker/invocation-result';
import { failure } from '../invoker/invocation-error';
import { RestapRegistry } from '../registry/restap.registry';
import type { ApprovalAnswer, ApprovalRequest, GatedCall } from './approval.types';
import { spanEvent } from '../telemetry/restap.telemetry';
import { ATTR } from '../telemetry/telemetry.names';

/** What `approvalId` accepts: `apr_` and 32 base64url characters (24 random bytes). */
export const APPROVAL_ID_PATTERN = /^apr_[A-Za-z0-9_-]{32}$/;

/** Plain replies that answer the one pending approval of a session. */
const APPROVE_WORDS = /^\s*(approve|approved|yes|y|ok|okay)\s*[.!]*\s*$/i;
const DENY_WORDS = /^\s*(deny|denied|no|n|reject)\s*[.!]*\s*$/i;

/** Longest argument text quoted in a default question. */
const QUESTION_ARGS_CHARS = 500;

/** An approval just decided by this request (it won the conditional UPDATE). */
export interface DecidedApproval {
  record: ApprovalRecord;
  approved: boolean;
  /** The stored arguments, parsed: what runs, nothing else. */
  args: Record<string, unknown>;
}

/**
 * Human approval of consequential calls, for every door (issue 35). `gate` tells whether a call
 * needs a person's approval and, if so, parks it as a pending row in PostgreSQL instead of running
 * it; `decide` settles one by a conditional UPDATE … RETURNING that exactly one request wins, on
 * whichever replica; `run` then makes the approved call — with the stored arguments, through the
 * invoker, with the approver's credentials — and records its result. Denied and expired approvals
 * never run.
 *
 * @example
 * const pending = await approvals.gate({ door: 'mcp', capabilityId: 'text.reverse', args }, caller);
 * if (pending) return tellHowToApprove(pending);
 */
@Injectable()
export class ApprovalService {
  private readonly logger = new Logger('Restap');

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
    @Inject(RESTAP_APPROVAL_STORE) private readonly store: ApprovalStore,
    private readonly tools: CapabilityTools,
  ) {}

  /** True when some capability can need approval (its decorator asks, or the module option may). */
  get inUse(): boolean {
    return this.options.approval.require !== undefined || this.registry.getCapabilities().some((c) => c.options.approval);
  }

  /**
   * The question when this call needs approval, else undefined. A rule that throws asks for
   * approval (fail closed).
   */
  questionFor(capabilityId: string, args: Record<string, unknown>, caller: RestapCaller): string | undefined {
    const capability = this.registry.getCapability(capabilityId);
    if (!capability) return undefined;
    const frozen = Object.freeze({ ...args });
    let answer: boolean | string | undefined = this.ask(capabilityId, () => {
      const rule = capability.options.approval;
      return typeof rule === 'function' ? rule(frozen, caller) : rule;
    });
    const { require } = this.options.approval;
    if (!answer && require) answer = this.ask(capabilityId, () => require(capabilityId, frozen, caller));
    if (!answer) return undefined;
    if (typeof answer === 'string' && answer.trim()) return answer.trim();
    const shown = JSON.stringify(args);
    const quoted = shown.length > QUESTION_ARGS_CHARS ? `${shown.slice(0, QUESTION_ARGS_CHARS)}…` : shown;
    return `Allow "${capability.options.title}" (${capabilityId}) with ${quoted}?`;
  }

  /**
   * Parks the call as a pending approval when it needs one (undefined: run it now). `asked`: the
   * question the caller already got from `questionFor` (a rule is asked once per call).
   */
  async gate(call: GatedCall, caller: RestapCaller, asked?: string): Promise<ApprovalRequest | undefined> {
    const question = asked ?? this.questionFor(call.capabilityId, call.args, caller);
    if (question === undefined) return undefined;
    const record = await this.store.create({
      id: `apr_${randomToken(24)}`,
      sessionHash: call.sessionHash ?? null,
      door: call.door,
      capability: call.capabilityId,
      arguments: JSON.stringify(call.args),
      ...(call.toolName ? { toolName: call.toolName } : {}),
      ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
      question,
      requestedBy: this.options.approval.identify(caller),
      ttlMs: this.options.approval.ttlMs,
    });
    // The approval's id and arguments stay out of traces; which capability, on which door, is enough.
    spanEvent('restap.approval.required', { [ATTR.restapCapabilityId]: call.capabilityId, [ATTR.restapApprovalDoor]: call.door });
    return requestOf(record);
  }

  /**
   * Settles an approval of that session (none: a sessionless one). Only one request ever wins; the
   * others learn why not: 404 approval_not_found (unknown id, or another session's: the two are
   * not told apart), 409 approval_already_decided, 410 approval_expired.
   */
  async decide(answer: ApprovalAnswer, sessionHash: Buffer | undefined, caller: RestapCaller, call?: { capabilityId: string; args: Record<string, unknown> }): Promise<DecidedApproval> {
    const scope = sessionHash ?? null;
    const notFound = (): ApprovalNotFoundException =>
      new ApprovalNotFoundException(`No approval ${APPROVAL_ID_PATTERN.test(answer.id) ? answer.id : '(malformed id)'} is pending in this ${sessionHash ? 'session' : 'scope'}.`);
    if (!APPROVAL_ID_PATTERN.test(answer.id)) throw notFound();
    if (call) {
      // A door that resends the call with the answer (MCP): it must be the very call shown.
      const shown = await this.store.find(answer.id, scope);
      if (!shown) throw notFound();
      if (shown.capability !== call.capabilityId || canonicalJson(JSON.parse(shown.arguments)) !== canonicalJson(call.args)) {
        throw new ApprovalMismatchException(`Approval ${shown.id} was asked for ${shown.capability} with ${shown.arguments}; this call differs. An approval runs the call shown, nothing else.`);
      }
    }
    const decision = answer.decision === 'approve' ? 'approved' : 'denied';
    const record = await this.store.decide(answer.id, scope, decision, this.options.approval.identify(caller));
    if (record) spanEvent('restap.approval.decided', { [ATTR.restapCapabilityId]: record.capability, [ATTR.restapApprovalDecision]: decision });
    if (record) return { record, approved: decision === 'approved', args: JSON.parse(record.arguments) as Record<string, unknown> };
    const found = await this.store.find(answer.id, scope);
    if (!found) throw notFound();
    if (found.decision) {
      throw new ApprovalDecidedException(`Approval ${found.id} was already ${found.decision}${found.decidedAt ? ` at ${found.decidedAt.toISOString()}` : ''}; it runs at most once.`);
    }
    throw new ApprovalExpiredException(`Approval ${found.id} expired at ${found.expiresAt.toISOString()}; the call did not run. Ask again.`);
  }

  /**
   * The approval gate of a door's direct call (an MCP `tools/call`; see CapabilityTools.call).
   * Without `answer`: a call that needs approval is parked and answered `approval_required` (403,
   * with `approval`). With `answer` (the client resends the call with the person's decision): the
   * call must be the one shown; approved, it runs once; denied, it answers 403 approval_denied;
   * an unknown, decided or expired id answers 404 / 409 / 410. Never rejects but for storage.
   */
  gateFor(door: GatedCall['door'], caller: RestapCaller, answer?: ApprovalAnswer, sessionHash?: Buffer): ToolCallGate {
    return async (tool, args) => {
      if (!answer) {
        const asked = await this.gate({ door, capabilityId: tool.capabilityId, args, ...(sessionHash ? { sessionHash } : {}) }, caller);
        return asked && { ...failure(403, 'approval_required', `${asked.question} This call needs a person's approval (approval ${asked.id}, until ${asked.expires_at}) and has NOT run.`), approval: asked };
      }
      let decided: DecidedApproval;
      try {
        decided = await this.decide(answer, sessionHash, caller, { capabilityId: tool.capabilityId, args });
      } catch (error) {
        if (error instanceof RestapException) return failure(error.getStatus(), error.code, error.message);
        throw error;
      }
      return this.run(decided, caller);
    };
  }

  /**
   * The answer a plain message gives: "approve"/"yes" or "deny"/"no" answers the session's one
   * pending approval; anything else, or a session with none or several pending, is no answer.
   */
  async answerOfMessage(message: string, sessionHash: Buffer): Promise<ApprovalAnswer | undefined> {
    const decision = APPROVE_WORDS.test(message) ? 'approve' : DENY_WORDS.test(message) ? 'deny' : undefined;
    if (!decision) return undefined;
    const pending = await this.store.pending(sessionHash, 2);
    return pending.length === 1 ? { id: pending[0].id, decision } : undefined;
  }

  /** The door that asked for an approval of that session (none: sessionless), if it exists. */
  async doorOf(id: string, sessionHash: Buffer | undefined): Promise<string | undefined> {
    if (!APPROVAL_ID_PATTERN.test(id)) return undefined;
    return (await this.store.find(id, sessionHash ?? null))?.door;
  }

  /** The session's pending approvals, oldest first. */
  async pendingOf(sessionHash: Buffer, limit = 20): Promise<ApprovalRequest[]> {
    return (await this.store.pending(sessionHash, limit)).map(requestOf);
  }

  /**
   * Runs an approved call once, with its stored arguments and the approver's credentials, and
   * keeps the result with the approval. Never rejects.
   */
  async run(decided: DecidedApproval, caller: RestapCaller, signal?: AbortSignal, resultText: (r: InvocationResult) => string = defaultText): Promise<InvocationResult> {
    const { record } = decided;
    let result: InvocationResult;
    if (!decided.approved) result = deniedResult(record);
    // Through CapabilityTools, as every door's call: the same checks, timeout (504 tool_timeout) and span.
    else result = await this.tools.callCapability(record.capability, decided.args, caller, signal);
    try {
      await this.store.recordResult(record.id, result.ok, resultText(result));
    } catch (error) {
      // The call ran (or was denied) and its decision is stored; only the audit copy of its result is lost.
      // The id is a bearer of the decision (alone, for a sessionless door): only its start is logged.
      this.logger.error(`Could not store the result of approval ${record.id.slice(0, 8)}…: ${(error as Error)?.name ?? 'Error'}`);
    }
    return result;
  }

  private ask(capabilityId: string, rule: () => boolean | string | undefined): boolean | string | undefined {
    try {
      return rule();
    } catch (error) {
      this.logger.error(`The approval rule of ${capabilityId} threw ${(error as Error)?.name ?? 'an error'}: the call needs approval.`);
      return true;
    }
  }
}

/** The result a denied call gives (the model, or the client, reads it). */
function deniedResult(record: ApprovalRecord): InvocationResult {
  return failure(403, 'approval_denied', `A person denied ${record.capability} (approval ${record.id}); it did not run.`);
}

function defaultText(result: InvocationResult): string {
  return result.ok ? (typeof result.body === 'string' ? result.body : (JSON.stringify(result.body) ?? 'null')) : `Error ${result.status} ${result.error}: ${result.message}`;
}

/** The wire shape of a stored approval. */
export function requestOf(record: ApprovalRecord): ApprovalRequest {
  return { id: record.id, capability: record.capability, arguments: JSON.parse(record.arguments) as unknown, question: record.question, expires_at: record.expiresAt.toISOString() };
}

/** JSON with object keys sorted: two renderings of the same arguments compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
