import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  inputRequired,
  inputResponse,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { RestapCaller } from '../../core/caller';
import type { ApprovalAnswer, ApprovalRequest } from '../../core/approvals/approval.types';
import { canonicalJson } from '../../core/approvals/approval.service';
import { callOf } from './mcp-call.context';

/**
 * What the sealed `requestState` of an approval round carries. Bound to the approval, the call
 * (the capability and a digest of its exact arguments), the caller and an expiry; for the `talk`
 * tool also the session to continue (a secret: the reason the state is encrypted, not only signed).
 */
export interface ApprovalRound {
  v: 1;
  /** `call`: a capability's tool; `talk`: the talk tool's turn. */
  k: 'call' | 'talk';
  /** The approval's id (`apr_…`). */
  id: string;
  /** The tool the round belongs to (a state echoed to another tool is refused). */
  t: string;
  /** SHA-256 (base64url) of the canonical JSON of the tool call's arguments. */
  a: string;
  /** The approval's expiry, ms since the epoch. */
  exp: number;
  /** SHA-256 (base64url, 16 bytes) of who asked (`approval.identify`). */
  b: string;
  /** The talk session to continue (`talk` only). */
  s?: string;
}

/** The key of the one embedded request of an approval round. */
export const APPROVAL_INPUT = 'approval';

/** The answer the embedded elicitation asks for. */
const DECISION_SCHEMA = {
  type: 'object' as const,
  properties: {
    decision: { type: 'string' as const, title: 'Decision', description: 'approve runs the call once, exactly as shown; deny drops it.', enum: ['approve', 'deny'] },
  },
  required: ['decision'],
};

const VERSION = 'r1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Additional authenticated data: a state sealed for another purpose with the same key never opens here. */
const AAD = Buffer.from('nestjs-restap mcp approval requestState v1');

/**
 * The MCP input-required round-trip of approvals (protocol revision 2026-07-28), on the SDK's own
 * pieces: a held call answers `inputRequired({inputRequests: {approval: elicit}, requestState})`;
 * the client (its SDK's driver) asks its person and retries the same call with the answer in
 * `inputResponses` and the state echoed; the SDK runs `verify` (this class's, as
 * `ServerOptions.requestState.verify`) before the handler, which reads the opened state through
 * `ctx.mcpReq.requestState()`.
 *
 * The state is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
 * `approval.requestStateSecret`, shared by every replica: it cannot be forged or altered, and it
 * hides the session a talk round continues. It does not need to be single-use itself: the approval
 * it names is decided once in PostgreSQL, so a replayed retry runs nothing.
 */
export class McpApprovalRounds {
  private readonly key: Buffer;

  constructor(
    secret: Buffer,
    private readonly identify: (caller: RestapCaller) => string,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'nestjs-restap', 'mcp approval requestState', 32));
  }

  /**
   * True when the request's client can be asked in-band: a 2026-07-28 request whose client
   * declares form elicitation (`elicitation: {}` counts as form). Others get the resend-with-`_meta`
   * result (the SDK refuses to embed a request the client did not declare).
   */
  canAsk(ctx: ServerContext): boolean {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    if (!envelope?.[PROTOCOL_VERSION_META_KEY]) return false;
    const elicitation = (envelope[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { form?: unknown; url?: unknown } } | undefined)?.elicitation;
    return typeof elicitation === 'object' && elicitation !== null && (elicitation.form !== undefined || elicitation.url === undefined);
  }

  /** The held call as an input-required result: the question as a form elicitation, the round sealed. */
  ask(approval: ApprovalRequest, round: Pick<ApprovalRound, 'k' | 't' | 's'>, args: unknown, caller: RestapCaller): InputRequiredResult {
    const sealed: ApprovalRound = {
      v: 1,
      ...round,
      id: approval.id,
      a: digestOf(args),
      exp: Date.parse(approval.expires_at),
      b: this.bindingOf(caller),
    };
    const message = `${approval.question} (approval ${approval.id}, until ${approval.expires_at}). It runs once, with exactly these arguments: ${JSON.stringify(approval.arguments)}`;
    return inputRequired({ inputRequests: { [APPROVAL_INPUT]: inputRequired.elicit({ message, requestedSchema: DECISION_SCHEMA }) }, requestState: this.seal(sealed) });
  }

  /** `ServerOptions.requestState.verify`: opens the state and checks it was asked by this caller; throws otherwise (the SDK answers -32602). */
  readonly verify = async (state: string, ctx: ServerContext): Promise<ApprovalRound> => {
    const round = this.open(state);
    if (round.b !== this.bindingOf(callOf(ctx).caller)) throw new Error('bind');
    return round;
  };

  /** The round a retried call continues (its state already verified by the SDK), if any. */
  roundOf(ctx: ServerContext): ApprovalRound | undefined {
    const round = ctx.mcpReq.requestState<ApprovalRound>();
    return round && typeof round === 'object' && round.v === 1 ? round : undefined;
  }

  /**
   * The person's answer in a retry of `round`, checked against the call it was asked for: an
   * `ApprovalAnswer`, or why the call does not run (another call, expired, dismissed, no answer).
   */
  answerOf(ctx: ServerContext, round: ApprovalRound, kind: ApprovalRound['k'], tool: string, args: unknown): ApprovalAnswer | RoundRefusal {
    if (round.k !== kind || round.t !== tool || round.a !== digestOf(args)) {
      return failed('approval_arguments_mismatch', 409, `This retry is not the call approval ${round.id} was asked for (another tool or other arguments). An approval runs the call shown, nothing else.`);
    }
    if (!(round.exp > Date.now())) return failed('approval_expired', 410, `Approval ${round.id} expired at ${new Date(round.exp).toISOString()}; the call did not run. Ask again.`);
    const response = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT);
    if (response.kind === 'elicit' && response.action === 'decline') return { id: round.id, decision: 'deny' };
    if (response.kind === 'elicit' && response.action === 'cancel') {
      return failed('approval_required', 403, `The question was dismissed: the call has NOT run. Approval ${round.id} stays pending until ${new Date(round.exp).toISOString()}.`);
    }
    const decision = response.kind === 'elicit' ? response.content?.decision : undefined;
    if (decision === 'approve' || decision === 'deny') return { id: round.id, decision };
    return failed('invalid_request', 400, `The retry must answer the "${APPROVAL_INPUT}" input with {"decision": "approve" | "deny"}; the call has NOT run.`);
  }

  private bindingOf(caller: RestapCaller): string {
    return createHash('sha256').update(this.identify(caller)).digest().subarray(0, 16).toString('base64url');
  }

  private seal(round: ApprovalRound): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(AAD);
    const body = Buffer.concat([cipher.update(JSON.stringify(round), 'utf8'), cipher.final()]);
    return VERSION + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  private open(state: string): ApprovalRound {
    if (!state.startsWith(VERSION)) throw new Error('malformed');
    const raw = Buffer.from(state.slice(VERSION.length), 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(AAD);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    let text: string;
    try {
      text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('mac');
    }
    const round = JSON.parse(text) as ApprovalRound;
    if (round?.v !== 1 || typeof round.id !== 'string') throw new Error('malformed');
    return round;
  }
}

/** SHA-256 (base64url) of the arguments' canonical JSON: key order does not matter. */
export function digestOf(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args ?? {})).digest('base64url');
}

/** Why a retried round does not run the call: a door error code, its HTTP status and message. */
export interface RoundRefusal {
  refused: { error: string; status: number; message: string };
}

function failed(error: string, status: number, message: string): RoundRefusal {
  return { refused: { error, status, message } };
}
