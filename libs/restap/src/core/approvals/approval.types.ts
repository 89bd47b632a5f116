/**
 * An approval a person is asked for, as every door shows it (the /talk SSE event
 * `approval.required`, the JSON reply's `approval_required`, MCP and A2A results).
 */
export interface ApprovalRequest {
  /** `apr_…`, unguessable: what the person's answer names. */
  id: string;
  /** The capability id, e.g. `text.reverse`. */
  capability: string;
  /** The exact arguments that run if approved. */
  arguments: unknown;
  /** The question to show the person. */
  question: string;
  /** ISO 8601; the approval cannot be given after it. */
  expires_at: string;
}

/** A person's answer as a door receives it. */
export interface ApprovalAnswer {
  id: string;
  decision: 'approve' | 'deny';
}

/** A call a door is about to make, as the approval gate sees it. */
export interface GatedCall {
  door: 'talk' | 'mcp' | 'a2a';
  capabilityId: string;
  args: Record<string, unknown>;
  /** SHA-256 of the session it belongs to; none for a sessionless door. */
  sessionHash?: Buffer;
  /** The model's tool name and call id (/talk). */
  toolName?: string;
  toolCallId?: string;
}
