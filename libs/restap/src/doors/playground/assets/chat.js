// The conversation: POST /talk streamed over SSE when the catalog offers it, each delta appended
// as it arrives; tool.* steps, status and artifact events shown; Stop aborts the stream (and, when
// the agent declares resumable streams, stops the turn with DELETE: leaving no longer stops it).
import { $, h, pretty } from './dom.js';
import { readError, readJson, readSse, request, logError } from './http.js';
import { SESSION_ID_HEADER } from './wire.generated.js';

/** The chat's session: shared with the news panel, kept in memory only (it is a bearer secret). */
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
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = message.value.trim();
    if (!text || running) return;
    message.value = '';
    running = new AbortController();
    send.disabled = true;
    stop.disabled = false;
    turn(talk, streaming, text, transcript, running.signal).finally(() => {
      running = undefined;
      send.disabled = false;
      stop.disabled = true;
      message.focus();
    });
  });
  stop.addEventListener('click', () => {
    if (!running) return;
    stopTurn(talk, current.messageId);
    running.abort();
  });
  $('new-conversation').addEventListener('click', () => {
    if (running) running.abort();
    session.set(undefined);
    transcript.replaceChildren(h('li', { class: 'note' }, 'New conversation.'));
    message.focus();
  });
}

/** The turn being streamed: its message id, once message.start said it. */
const current = { messageId: undefined };

/**
 * With resumable streams (`x-restap-resume` on talk) the agent finishes a turn whose client left:
 * Stop asks it to stop with DELETE on the resume endpoint, the session in its header (never the URL).
 */
function stopTurn(talk, messageId) {
  const resume = talk['x-restap-resume'];
  if (!resume || typeof resume.endpoint !== 'string' || !messageId || !session.id) return;
  const url = resume.endpoint.replace('{message_id}', encodeURIComponent(messageId));
  request(url, { method: 'DELETE', headers: { [SESSION_ID_HEADER]: session.id } }).catch((error) => logError(`stop: ${error.message ?? error}`));
}

async function turn(talk, streaming, text, transcript, signal) {
  current.messageId = undefined;
  transcript.append(h('li', { class: 'msg user' }, h('div', { class: 'who' }, 'You'), h('div', { class: 'text' }, text)));
  const body = h('div', { class: 'text', 'aria-busy': 'true' });
  const extras = h('div', { class: 'extras' });
  const bubble = h('li', { class: 'msg agent' }, h('div', { class: 'who' }, 'Agent'), extras, body);
  transcript.append(bubble);
  bubble.scrollIntoView({ block: 'end' });
  const payload = { message: text };
  if (session.id) payload.session_id = session.id;
  try {
    const response = await request(talk.endpoint, {
      method: 'POST',
      json: payload,
      headers: { Accept: streaming ? 'text/event-stream, application/json;q=0.5' : 'application/json' },
      signal,
    });
    if (!response.ok) {
      const failure = await readError(response);
      return showError(bubble, `${failure.message} (${failure.error})`);
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      const json = await readJson(response);
      body.textContent = json?.reply ?? '';
      if (json?.session_id) session.set(json.session_id);
      return;
    }
    const steps = new Map();
    let done = false;
    await readSse(response, (event, data) => {
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
      }
    });
    // A stream cut before `done` (proxy timeout, server gone) is not a complete answer: say so.
    if (!done) showError(bubble, 'The stream ended before the agent said it was done.');
  } catch (error) {
    if (signal.aborted) bubble.append(h('p', { class: 'note small' }, 'Stopped.'));
    else {
      logError(String(error));
      showError(bubble, `Network error: ${error.message ?? error}`);
    }
  } finally {
    body.removeAttribute('aria-busy');
  }
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
