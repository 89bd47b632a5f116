import type { ApprovalRequest } from '../approvals/approval.types';

/** A capability that answered with a 2xx/3xx: `body` is the JSON the route sent (text when it was not JSON). */
export interface InvocationSuccess {
  ok: true;
  status: number;
  body: unknown;
}

/**
 * A capability that was refused or failed, in one shape whichever filter wrote the error:
 * `error` is a snake_case code, `message` the human text (validation messages included; never a stack).
 */
export interface InvocationFailure {
  ok: false;
  status: number;
  error: string;
  message: string;
  /** Set when the call was not made because it waits for a person's approval (`error: approval_required`). */
  approval?: ApprovalRequest;
}

export type InvocationResult = InvocationSuccess | InvocationFailure;
