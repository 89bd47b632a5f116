// Every request the page makes goes through here: the credential (an API key or an OAuth access
// token, in this tab's memory only, sent to the page's own origin only), the 401 prompt, and the
// raw-frames log (which never shows a header, so never the credential).

let credential = '';
/** 'key' (an API key) or 'token' (an OAuth access token). */
let kind = 'key';
let askKey = async () => false;
const listeners = new Set();

/** Who asks the user for a credential when a request meets 401: resolves true once one was given. */
export function setKeyPrompt(prompt) {
  askKey = prompt;
}

/** Keeps `value` in memory as the credential sent with every request to this origin. */
export function setCredential(value, credentialKind) {
  credential = value;
  kind = credentialKind;
}

/** Forgets the credential (sign out). */
export function clearCredential() {
  credential = '';
}

export function hasApiKey() {
  return credential !== '' && kind === 'key';
}

/** True when an OAuth access token is held. */
export function hasToken() {
  return credential !== '' && kind === 'token';
}

/** Subscribes to raw frames: { at, kind: 'request'|'response'|'sse'|'body'|'error', text }. */
export function onFrame(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Logs a line in the raw frames (the sign-in's requests, whose bodies it must not show). */
export function note(kind, text) {
  frame(kind, text);
}

function frame(kind, text) {
  const entry = { at: performance.now(), kind, text };
  for (const listener of listeners) listener(entry);
}

/**
 * fetch() with the credential as `Authorization: Bearer` (to the page's own origin only: the
 * agent's routes); on 401 asks for one and retries once. `init.json` is sent as a JSON body.
 */
export async function request(url, init = {}) {
  const sameOrigin = new URL(url, location.href).origin === location.origin;
  for (let attempt = 0; ; attempt++) {
    const headers = new Headers(init.headers);
    if (credential && sameOrigin) headers.set('Authorization', `Bearer ${credential}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const method = init.method ?? 'GET';
    frame('request', `${method} ${url}${body ? `\n${body}` : ''}`);
    const response = await fetch(url, { method, headers, body, signal: init.signal, cache: 'no-store' });
    frame('response', `${response.status} ${response.statusText} ${response.headers.get('content-type') ?? ''}`);
    if (response.status === 401 && attempt === 0 && (await askKey())) continue;
    return response;
  }
}

/** The JSON body of a response (logged), or undefined when it is not JSON. */
export async function readJson(response) {
  const text = await response.text();
  frame('body', text.length > 4000 ? `${text.slice(0, 4000)}…` : text);
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** `{error, message}` of a failed response, or a generic one. */
export async function readError(response) {
  const body = await readJson(response);
  if (body && typeof body.message === 'string') return { error: String(body.error ?? response.status), message: body.message, body };
  return { error: `http_${response.status}`, message: `${response.status} ${response.statusText}`, body };
}

/**
 * Reads an SSE body frame by frame (event, id, data parsed as JSON), calling `onEvent` as each
 * frame completes. Comments (heartbeats) are logged and skipped. `signal` (optional) drops the
 * body: the read rejects with its reason.
 */
export async function readSse(response, onEvent, signal) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  if (signal) {
    if (signal.aborted) await reader.cancel(signal.reason);
    else signal.addEventListener('abort', () => void reader.cancel(signal.reason).catch(() => undefined), { once: true });
  }
  let buffer = '';
  let current = { event: 'message', data: [], id: undefined };
  const dispatch = () => {
    if (!current.data.length) return;
    const raw = current.data.join('\n');
    frame('sse', `${current.id ? `id: ${current.id}\n` : ''}event: ${current.event}\ndata: ${raw}`);
    let data;
    try {
      data = JSON.parse(raw);
    } catch {
      data = { text: raw };
    }
    onEvent(current.event, data, current.id);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (signal?.aborted) throw signal.reason;
    if (done) break;
    buffer += value;
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        dispatch();
        current = { event: 'message', data: [], id: undefined };
      } else if (line.startsWith(':')) {
        frame('sse', line);
      } else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') current.event = val;
        else if (field === 'data') current.data.push(val);
        else if (field === 'id') current.id = val;
      }
    }
  }
  dispatch();
}

/** Logs an error line in the raw frames. */
export function logError(text) {
  frame('error', text);
}
