// Approval cards (issue 35): a call the agent's model asked for that waits for a person. The SSE
// event `approval.required` (or a JSON reply's `approval_required`) shows as a card with the
// capability, its exact arguments, the question and Approve / Deny; the decision is the next /talk
// turn of the same session, `{session_id, message, approval: {id, decision}}`. While one waits, the
// session and the card are kept in sessionStorage (this tab only, gone when it closes) so that a
// reload shows the card again; answered, expired or "New conversation", it is forgotten.
import { h, pretty } from './dom.js';

const KEY = 'restap-playground-approvals';

/** The approvals this tab still waits on: `{talk, sessionId, approvals: [...]}`. */
export const waiting = {
  load(talk) {
    const kept = read();
    if (!kept || kept.talk !== talk) return undefined;
    const now = Date.now();
    const approvals = kept.approvals.filter((a) => !(Date.parse(a.expires_at) <= now));
    return approvals.length ? { sessionId: kept.sessionId, approvals } : undefined;
  },
  add(talk, sessionId, approval) {
    const kept = read();
    const same = kept && kept.talk === talk && kept.sessionId === sessionId;
    const approvals = (same ? kept.approvals : []).filter((a) => a.id !== approval.id);
    write({ talk, sessionId, approvals: [...approvals, approval] });
  },
  remove(id) {
    const kept = read();
    if (!kept) return;
    const approvals = kept.approvals.filter((a) => a.id !== id);
    if (approvals.length) write({ ...kept, approvals });
    else this.clear();
  },
  clear() {
    try {
      sessionStorage.removeItem(KEY);
    } catch {
      // Nothing kept.
    }
  },
};

function read() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    return kept && typeof kept.talk === 'string' && typeof kept.sessionId === 'string' && Array.isArray(kept.approvals) ? kept : undefined;
  } catch {
    return undefined;
  }
}

function write(kept) {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(kept));
  } catch {
    // Storage full or disabled: the card still works, only a reload forgets it.
  }
}

/** True for the wire shape of an approval (`approval.required`, `approval_required[]`). */
export function isApproval(value) {
  return Boolean(value) && typeof value.id === 'string' && typeof value.capability === 'string';
}

let cards = 0;

/**
 * The card of one approval. `decide(approval, decision)` sends the answer: it resolves with
 * `{sent: true}`, or `{sent: false, message, retry}` when the agent refused it or a turn is still
 * running (`retry`: the buttons come back).
 */
export function approvalCard(approval, decide) {
  const n = ++cards;
  const title = `approval-title-${n}`;
  const question = `approval-question-${n}`;
  const status = h('p', { class: 'approval-status small', role: 'status' });
  const approve = h('button', { type: 'button', class: 'approve', 'aria-describedby': question }, 'Approve');
  const deny = h('button', { type: 'button', class: 'deny', 'aria-describedby': question }, 'Deny');
  const expires = Date.parse(approval.expires_at);
  const card = h('section', { class: 'approval', 'aria-labelledby': title, 'data-approval-id': approval.id },
    h('h3', { id: title }, 'Approval needed'),
    h('p', { id: question, class: 'question' }, approval.question ?? `Allow ${approval.capability}?`),
    h('dl', {},
      h('dt', {}, 'Capability'), h('dd', {}, h('code', {}, approval.capability)),
      h('dt', {}, 'Arguments'), h('dd', {}, h('pre', { class: 'approval-args' }, pretty(approval.arguments ?? {}))),
      Number.isFinite(expires) ? [h('dt', {}, 'Answer before'), h('dd', {}, h('time', { datetime: approval.expires_at }, new Date(expires).toLocaleString()))] : []),
    h('div', { class: 'buttons' }, approve, deny),
    status);
  const answer = async (decision) => {
    approve.disabled = true;
    deny.disabled = true;
    card.setAttribute('aria-busy', 'true');
    status.textContent = decision === 'approve' ? 'Approving…' : 'Denying…';
    const outcome = await decide(approval, decision);
    card.removeAttribute('aria-busy');
    if (outcome.sent) {
      card.classList.add(decision === 'approve' ? 'approved' : 'denied');
      status.textContent = decision === 'approve' ? 'Approved: the call runs below.' : 'Denied: the call did not run.';
      return;
    }
    status.textContent = outcome.message;
    card.classList.toggle('refused', !outcome.retry);
    approve.disabled = !outcome.retry;
    deny.disabled = !outcome.retry;
  };
  approve.addEventListener('click', () => answer('approve'));
  deny.addEventListener('click', () => answer('deny'));
  return card;
}
