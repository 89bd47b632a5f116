// The conversation: POST /talk streamed over SSE when the catalog offers it, each delta appended
// as it arrives; tool.* steps, status and artifact events shown; Stop aborts the stream (and, when
// the agent declares resumable streams, stops the turn with DELETE: leaving no longer stops it).
// With resumable streams (`x-restap-resume`) a dropped stream is resumed with backoff from the last
// event id, and the running turn is kept in sessionStorage so a reload picks it up again.
// A call waiting for a person's approval shows as a card with Approve / Deny (approvals.js).
import { $, h, pretty } from './dom.js';
import { approvalCard, isApproval, waiting } from './approvals.js';
import { readError, readJson, readSse, request, logError } from './http.js';
import { SESSION_ID_HEADER } from './wire.generated.js';

/**
 * The chat's session: shared with the news panel, kept in memory (it is a bearer secret); only
 * while a turn runs on an agent with resumable streams is it also in sessionStorage (see `pending`).
 */
export const session = {
  id: undefined,
  listeners: new Set(),
  set(id) {
    if (id === this.id) return;
    this.id = id;
    for (const listener of this.listeners) listener(id);
  },
};

export function setupChat(talk) {
  const form = $('chat-form');
  const message = $('message');
  const send = $('send');
  const stop = $('stop');
  const transcript = $('transcript');
  const label = $('session-label');
  let running;

  if (!talk) {
    transcript.append(h('li', { class: 'note' }, 'This agent does not offer talk.'));
    send.disabled = true;
    message.disabled = true;
    return;
  }
  const streaming = Boolean(talk.streaming && talk.streaming.supported);
  session.listeners.add((id) => (label.textContent = id ? 'Continuing a session' : 'New session'));
  label.textContent = 'New session';

  message.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  /** Runs one turn (a message, an approval's answer, or the resume of a turn kept for a reload). */
  const start = (text, options = {}) => {
    running = new AbortController();
    send.disabled = true;
    stop.disabled = false;
    return turn(talk, streaming, text, transcript, running.signal, options.resumed, { answer: options.answer, showApproval }).finally(() => {
      running = undefined;
      send.disabled = false;
      stop.disabled = true;
      if (!options.resumed) message.focus();
    });
  };
  /** An approval card's answer: the next turn of the session, `{approval: {id, decision}}`. */
  const decide = async (approval, decision) => {
    if (running) return { sent: false, retry: true, message: 'Wait for the current reply to finish, then answer.' };
    const outcome = await start(decision === 'approve' ? 'Approve' : 'Deny', { answer: { id: approval.id, decision } });
    if (outcome?.refused) {
      const retry = outcome.refused.status === 429 || outcome.refused.status >= 500 || outcome.refused.status === 0;
      if (!retry) waiting.remove(approval.id);
      return { sent: false, retry, message: `${outcome.refused.message} (${outcome.refused.error})` };
    }
    waiting.remove(approval.id);
    return { sent: true };
  };
  /** Shows an approval the agent asked for as a card, kept for a reload while it waits. */
  function showApproval(container, approval) {
    container.append(approvalCard(approval, decide));
    if (session.id) waiting.add(talk.endpoint, session.id, approval);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = message.value.trim();
    if (!text || running) return;
    message.value = '';
    start(text);
  });
  stop.addEventListener('click', () => {
    if (!running) return;
    stopTurn(talk, current.messageId);
    pending.clear();
    running.abort();
  });
  $('new-conversation').addEventListener('click', () => {
    if (running) running.abort();
    pending.clear();
    waiting.clear();
    session.set(undefined);
    transcript.replaceChildren(h('li', { class: 'note' }, 'New conversation.'));
    message.focus();
  });

  // A reload during a turn: the turn goes on at the agent; pick its stream up from the start.
  const left = pending.load();
  if (left && left.talk === talk.endpoint && resumeUrl(talk, left.messageId) && streaming) {
    session.set(left.sessionId);
    // Its stream replays any approval.required it sent: the cards come back with it.
    start(left.message, { resumed: left });
    return;
  }
  if (left) pending.clear();
  // A reload while an approval waits: the session and its cards again.
  const kept = waiting.load(talk.endpoint);
  if (kept) {
    session.set(kept.sessionId);
    const extras = h('div', { class: 'extras' });
    transcript.append(h('li', { class: 'msg agent' }, h('div', { class: 'who' }, 'Agent'), h('p', { class: 'note small' }, 'Still waiting for your answer:'), extras));
    for (const approval of kept.approvals) showApproval(extras, approval);
  } else {
    waiting.clear();
  }
}

/**
 * The running turn of this tab, in sessionStorage (this tab only, gone when it closes) so a reload
 * can resume it: its message id, the last event id seen, the message, and the session_id (a
 * resume must prove the session; it is removed as soon as the turn ends, is stopped or fails).
 */
const PENDING_KEY = 'restap-playground-turn';

/** True while a turn kept across a reload waits to be picked up (the sign-in dialog says so). */
export function turnWaiting() {
  return pending.load() !== undefined;
}

const pending = {
  save(turn) {
    try {
      sessionStorage.setItem(PENDING_KEY, JSON.stringify(turn));
    } catch {
      // Storage full or disabled: the turn still streams, only a reload cannot resume it.
    }
  },
  load() {
    try {
      const turn = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null');
      return turn && typeof turn.messageId === 'string' && typeof turn.sessionId === 'string' && typeof turn.talk === 'string' ? turn : undefined;
    } catch {
      return undefined;
    }
  },
  clear() {
    try {
      sessionStorage.removeItem(PENDING_KEY);
    } catch {
      // Nothing kept.
    }
  },
};

/** Resume attempts after a drop (counted afresh after any progress), and the backoff between them. */
const RESUME_ATTEMPTS = 8;
const backoffMs = (attempt) => Math.min(500 * 2 ** (attempt - 1), 8000);

/**
 * Waits the backoff, or less when the browser says it is online again; while the browser is
 * offline, waits until it is online (Stop still works). Rejects when the turn is stopped.
 */
function backoff(attempt, signal) {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('online', done);
      signal.removeEventListener('abort', aborted);
      resolve();
    };
    const aborted = () => {
      done();
      reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
    };
    const timer = navigator.onLine === false ? undefined : setTimeout(done, backoffMs(attempt));
    window.addEventListener('online', done);
    signal.addEventListener('abort', aborted);
  });
}

/** `GET {talk}/{message_id}` when the agent declares resumable streams, else undefined. */
function resumeUrl(talk, messageId) {
  const resume = talk['x-restap-resume'];
  if (!resume || typeof resume.endpoint !== 'string' || !messageId) return undefined;
  return resume.endpoint.replace('{message_id}', encodeURIComponent(messageId));
}

/** The turn being streamed: its message id, once message.start said it. */
const current = { messageId: undefined };

/**
 * With resumable streams (`x-restap-resume` on talk) the agent finishes a turn whose client left:
 * Stop asks it to stop with DELETE on the resume endpoint, the session in its header (never the URL).
 */
function stopTurn(talk, messageId) {
  const url = resumeUrl(talk, messageId);
  if (!url || !session.id) return;
  request(url, { method: 'DELETE', headers: { [SESSION_ID_HEADER]: session.id } }).catch((error) => logError(`stop: ${error.message ?? error}`));
}

/**
 * One turn: POST /talk, or (`resumed`, after a reload) the resume of a turn kept in sessionStorage.
 * A stream that drops before `done` is resumed from the last event id when the agent allows it.
 * `ui.answer` (`{id, decision}`) answers an approval; `ui.showApproval` shows one the turn asks for.
 * Resolves with `{refused: {status, error, message}}` when the agent refused the request.
 */
async function turn(talk, streaming, text, transcript, signal, resumed, ui) {
  current.messageId = resumed?.messageId;
  transcript.append(h('li', { class: 'msg user' }, h('div', { class: 'who' }, 'You'), h('div', { class: 'text' }, text)));
  const body = h('div', { class: 'text', 'aria-busy': 'true' });
  const extras = h('div', { class: 'extras' });
  const notice = h('p', { class: 'note small resume-note', role: 'status', hidden: '' });
  const bubble = h('li', { class: 'msg agent' }, h('div', { class: 'who' }, 'Agent'), extras, body, notice);
  transcript.append(bubble);
  bubble.scrollIntoView({ block: 'end' });
  const steps = new Map();
  let done = false;
  let lastId = 0;
  const keep = () => {
    if (current.messageId && session.id && resumeUrl(talk, current.messageId)) {
      pending.save({ talk: talk.endpoint, messageId: current.messageId, sessionId: session.id, lastEventId: lastId, message: text });
    }
  };
  const onEvent = (event, data, id) => {
    const number = id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
    // A resumed stream starts after the last id seen; never show a frame twice.
    if (number !== undefined && number <= lastId) return;
    if (number !== undefined) lastId = number;
    if (event === 'message.start' || event === 'done') {
      if (data.session_id) session.set(data.session_id);
      if (event === 'message.start' && typeof data.id === 'string') current.messageId = data.id;
      if (event === 'done') done = true;
    } else if (event === 'message.delta') {
      // A text node per delta: the page shows each chunk the moment it arrives.
      body.append(document.createTextNode(data.text ?? ''));
      bubble.scrollIntoView({ block: 'end' });
    } else if (event === 'error') {
      showError(bubble, data.message ?? 'The agent failed.');
    } else if (event === 'status') {
      extras.append(h('p', { class: 'status small' }, data.message ?? data.text ?? pretty(data)));
    } else if (event.startsWith('tool.')) {
      toolStep(extras, steps, event, data);
    } else if (event === 'artifact') {
      extras.append(artifact(data));
    } else if (event === 'approval.required' && isApproval(data)) {
      ui.showApproval(extras, data);
    }
    if (done) pending.clear();
    else if (number !== undefined) keep();
  };
  let accepted = Boolean(resumed);
  try {
    let response;
    if (!resumed) {
      const payload = { message: text };
      if (session.id) payload.session_id = session.id;
      if (ui.answer) payload.approval = ui.answer;
      response = await request(talk.endpoint, {
        method: 'POST',
        json: payload,
        headers: { Accept: streaming ? 'text/event-stream, application/json;q=0.5' : 'application/json' },
        signal,
      });
      if (!response.ok) {
        const failure = await readError(response);
        showError(bubble, `${failure.message} (${failure.error})`);
        return { refused: { status: response.status, error: failure.error, message: failure.message } };
      }
      accepted = true;
      const type = response.headers.get('content-type') ?? '';
      if (!type.startsWith('text/event-stream')) {
        const json = await readJson(response);
        body.textContent = json?.reply ?? '';
        if (json?.session_id) session.set(json.session_id);
        for (const approval of Array.isArray(json?.approval_required) ? json.approval_required : []) {
          if (isApproval(approval)) ui.showApproval(extras, approval);
        }
        return undefined;
      }
    }
    let attempts = 0;
    let failure;
    for (;;) {
      if (response) {
        const before = lastId;
        failure = undefined;
        // Going offline drops the stream at once (the connection is gone; waiting for TCP to notice takes minutes).
        const dropped = new AbortController();
        const drop = () => dropped.abort(new Error('the browser went offline'));
        const stopped = () => dropped.abort(signal.reason);
        window.addEventListener('offline', drop);
        signal.addEventListener('abort', stopped);
        try {
          await readSse(response, onEvent, dropped.signal);
        } catch (error) {
          if (signal.aborted) throw error;
          failure = dropped.signal.aborted ? dropped.signal.reason : error;
          logError(String(failure));
        } finally {
          window.removeEventListener('offline', drop);
          signal.removeEventListener('abort', stopped);
        }
        if (done) break;
        if (lastId > before) attempts = 0;
      }
      const url = resumeUrl(talk, current.messageId);
      if (!url || !session.id || attempts >= RESUME_ATTEMPTS) {
        // A stream cut before `done` (proxy timeout, server gone) is not a complete answer: say so.
        notice.hidden = true;
        if (failure) showError(bubble, `Network error: ${failure.message ?? failure}`);
        else showError(bubble, 'The stream ended before the agent said it was done.');
        break;
      }
      attempts++;
      notice.hidden = false;
      notice.textContent = resumed && !response && attempts === 1 ? 'Picking the reply up again…' : 'Connection lost; resuming the reply…';
      if (!(resumed && !response && attempts === 1)) await backoff(attempts, signal);
      response = undefined;
      const headers = { Accept: 'text/event-stream', [SESSION_ID_HEADER]: session.id };
      if (lastId > 0) headers['Last-Event-ID'] = String(lastId);
      try {
        const answer = await request(url, { headers, signal });
        if (answer.ok) {
          notice.hidden = true;
          response = answer;
        } else if (answer.status >= 500 || answer.status === 429 || answer.status === 408) {
          failure = new Error(`${answer.status} ${answer.statusText}`);
          await answer.body?.cancel();
        } else {
          // turn_not_found, …: final.
          const refused = await readError(answer);
          notice.hidden = true;
          pending.clear();
          showError(bubble, `The reply could not be resumed: ${refused.message} (${refused.error})`);
          break;
        }
      } catch (error) {
        if (signal.aborted) throw error;
        failure = error;
        logError(String(error));
      }
    }
  } catch (error) {
    notice.hidden = true;
    if (signal.aborted) bubble.append(h('p', { class: 'note small' }, 'Stopped.'));
    else {
      logError(String(error));
      showError(bubble, `Network error: ${error.message ?? error}`);
    }
    // Never reached the agent: an approval's answer can be sent again.
    if (!accepted) return { refused: { status: 0, error: signal.aborted ? 'stopped' : 'network_error', message: signal.aborted ? 'Stopped before the agent had the answer.' : 'The answer did not reach the agent.' } };
  } finally {
    body.removeAttribute('aria-busy');
  }
  return undefined;
}

function showError(bubble, text) {
  bubble.classList.add('failed');
  bubble.append(h('p', { class: 'error', role: 'alert' }, text));
}

/** tool.start opens a collapsible step, tool.delta adds to it, tool.end closes it. */
function toolStep(extras, steps, event, data) {
  const key = data.id ?? data.tool_call_id ?? data.name ?? 'tool';
  let step = steps.get(key);
  if (!step) {
    const output = h('pre', { class: 'tool-output' });
    const summary = h('summary', {}, `Tool: ${data.name ?? data.tool ?? key}`);
    step = { el: h('details', { class: 'tool' }, summary, output), output, summary };
    steps.set(key, step);
    extras.append(step.el);
  }
  const { event: _e, id: _i, name: _n, ...rest } = data;
  if (event === 'tool.delta') step.output.append(typeof data.text === 'string' ? data.text : pretty(rest));
  else if (Object.keys(rest).length) step.output.append(`${pretty(rest)}\n`);
  if (event === 'tool.end') step.summary.append(' ✓');
}

function artifact(data) {
  const title = data.name ?? data.title ?? 'Artifact';
  const uri = typeof data.uri === 'string' ? data.uri : typeof data.url === 'string' ? data.url : undefined;
  const safe = uri && /^(https?:|\/)/.test(uri) ? uri : undefined;
  return h('figure', { class: 'artifact' },
    h('figcaption', {}, title, safe ? [' ', h('a', { href: safe, target: '_blank', rel: 'noopener' }, 'open')] : []),
    h('pre', {}, pretty(data)));
}
