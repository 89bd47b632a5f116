import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import { McpApprovalRounds, digestOf, type ApprovalRound } from './mcp-approval.rounds';
import { bindCall } from './mcp-call.context';
import type { ApprovalRequest } from '../../core/approvals/approval.types';

const SECRET = Buffer.from('0123456789abcdef0123456789abcdef-unit');
const identify = (caller: { headers: Record<string, unknown> }): string => String(caller.headers['x-user'] ?? 'anonymous');

/** A handler context as the SDK gives it: the envelope, the verified state, the answers, the HTTP request. */
function contextOf(fields: { envelope?: Record<string, unknown>; state?: unknown; responses?: Record<string, unknown>; user?: string } = {}): ServerContext {
  const req = new Request('http://127.0.0.1/mcp', { method: 'POST' });
  bindCall(req, { caller: { headers: fields.user ? { 'x-user': fields.user } : {} } });
  return { mcpReq: { envelope: fields.envelope, requestState: () => fields.state, inputResponses: fields.responses }, http: { req } } as unknown as ServerContext;
}

const approval = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: `apr_${'a'.repeat(32)}`,
  capability: 'text.reverse',
  arguments: { text: 'Hello' },
  question: 'Allow "Reverse text" (text.reverse) with {"text":"Hello"}?',
  expires_at: new Date(Date.now() + 60_000).toISOString(),
  ...over,
});

describe('McpApprovalRounds (issue 35, item 4: the 2026-07-28 input-required round-trip, requestState sealed with AES-256-GCM)', () => {
  const rounds = new McpApprovalRounds(SECRET, identify);

  async function sealed(user?: string, over: Partial<ApprovalRequest> = {}): Promise<{ state: string; round: ApprovalRound }> {
    const result = rounds.ask(approval(over), { k: 'call', t: 'text_reverse' }, { text: 'Hello' }, { headers: user ? { 'x-user': user } : {} });
    const state = result.requestState as string;
    return { state, round: await rounds.verify(state, contextOf({ user })) };
  }

  it('asks with a form elicitation (decision: approve | deny) and a state that opens to the round it sealed, bound to the approval, the call and its expiry', async () => {
    const result = rounds.ask(approval(), { k: 'call', t: 'text_reverse' }, { text: 'Hello' }, { headers: {} });
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests?.approval).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', requestedSchema: { required: ['decision'] } } });
    const { round } = await sealed();
    expect(round).toMatchObject({ v: 1, k: 'call', t: 'text_reverse', id: approval().id, a: digestOf({ text: 'Hello' }) });
    expect(round.exp).toBeGreaterThan(Date.now());
  });

  it('refuses a state altered by one character, sealed under another secret, or not ours at all', async () => {
    const { state } = await sealed();
    const body = state.slice(3);
    const flipped = `r1.${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}`;
    await expect(rounds.verify(flipped, contextOf())).rejects.toThrow('mac');
    const other = new McpApprovalRounds(Buffer.from('another-secret-of-32-bytes-at-least!!'), identify);
    await expect(other.verify(state, contextOf())).rejects.toThrow('mac');
    await expect(rounds.verify('v1.eyJwIjoxfQ.abc', contextOf())).rejects.toThrow('malformed');
    await expect(rounds.verify('r1.AAAA', contextOf())).rejects.toThrow('malformed');
  });

  it('binds the state to who asked: another caller echoing it is refused', async () => {
    const { state } = await sealed('ada');
    await expect(rounds.verify(state, contextOf({ user: 'ada' }))).resolves.toMatchObject({ v: 1 });
    await expect(rounds.verify(state, contextOf({ user: 'mallory' }))).rejects.toThrow('bind');
  });

  it('reads the answer: approve / deny from the form, decline denies, cancel runs nothing and keeps it pending, anything else is invalid', async () => {
    const { round } = await sealed();
    const answer = (responses: Record<string, unknown>) => rounds.answerOf(contextOf({ responses }), round, 'call', 'text_reverse', { text: 'Hello' });
    expect(answer({ approval: { action: 'accept', content: { decision: 'approve' } } })).toEqual({ id: round.id, decision: 'approve' });
    expect(answer({ approval: { action: 'accept', content: { decision: 'deny' } } })).toEqual({ id: round.id, decision: 'deny' });
    expect(answer({ approval: { action: 'decline' } })).toEqual({ id: round.id, decision: 'deny' });
    expect(answer({ approval: { action: 'cancel' } })).toMatchObject({ refused: { error: 'approval_required', status: 403 } });
    expect(answer({ approval: { action: 'accept', content: { decision: 'maybe' } } })).toMatchObject({ refused: { error: 'invalid_request', status: 400 } });
    expect(answer({})).toMatchObject({ refused: { error: 'invalid_request' } });
  });

  it('a retry must be the call asked for: the same kind, tool and arguments (key order aside), before the expiry', async () => {
    const { round } = await sealed();
    const yes = { approval: { action: 'accept', content: { decision: 'approve' } } };
    const check = (kind: ApprovalRound['k'], tool: string, args: unknown, r = round) => rounds.answerOf(contextOf({ responses: yes }), r, kind, tool, args);
    expect(check('call', 'text_reverse', { text: 'Hello' })).toEqual({ id: round.id, decision: 'approve' });
    expect(check('call', 'text_reverse', { text: 'Hello!' })).toMatchObject({ refused: { error: 'approval_arguments_mismatch', status: 409 } });
    expect(check('call', 'text_echo', { text: 'Hello' })).toMatchObject({ refused: { error: 'approval_arguments_mismatch' } });
    expect(check('talk', 'text_reverse', { text: 'Hello' })).toMatchObject({ refused: { error: 'approval_arguments_mismatch' } });
    expect(check('call', 'text_reverse', { text: 'Hello' }, { ...round, exp: Date.now() - 1 })).toMatchObject({ refused: { error: 'approval_expired', status: 410 } });
    expect(digestOf({ a: 1, b: { c: 2, d: 3 } })).toBe(digestOf({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('asks in-band only a 2026-07-28 request whose client declares form elicitation', () => {
    const modern = (capabilities: unknown) => contextOf({ envelope: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_CAPABILITIES_META_KEY]: capabilities } });
    expect(rounds.canAsk(modern({ elicitation: { form: {} } }))).toBe(true);
    expect(rounds.canAsk(modern({ elicitation: {} }))).toBe(true);
    expect(rounds.canAsk(modern({ elicitation: { url: {} } }))).toBe(false);
    expect(rounds.canAsk(modern({}))).toBe(false);
    expect(rounds.canAsk(contextOf())).toBe(false);
  });
});
