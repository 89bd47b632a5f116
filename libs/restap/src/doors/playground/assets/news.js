// The news feed, newest first, kept live without a reload: long-polls with `wait` when the
// catalog lists that parameter, else polls with `since`. A session-scoped feed reads the chat's
// session (or one pasted here), always in the Restap-Session-Id header, never in the URL.
import { $, h, pretty } from './dom.js';
import { readError, readJson, request, logError } from './http.js';
import { session } from './chat.js';
import { SESSION_ID_HEADER } from './wire.generated.js';

const SHOWN = 200;
const POLL_MS = 2000;
/** The first read looks this far back (news timestamps are the server's clock, ms). */
const BACKLOG_MS = 60 * 60 * 1000;

export function setupNews(news, receive, serverNow) {
  const feed = $('news-feed');
  const mode = $('news-mode');
  const scopeBox = $('news-scope');
  const form = $('news-form');
  if (!news) {
    feed.append(h('li', { class: 'note' }, 'This agent does not offer news.'));
    form.closest('details').hidden = true;
    return;
  }
  if (!receive) form.closest('details').hidden = true;
  const required = Boolean(news.sessions && news.sessions.required);
  const waitParam = (news.parameters ?? []).find((p) => p.name === 'wait');
  const wait = waitParam ? Math.max(1, Math.min(25, waitParam.schema?.maximum ?? 25)) : 0;
  mode.textContent = wait ? `live (long-poll, wait=${wait}s)` : `live (polling every ${POLL_MS / 1000}s)`;

  // Which feed: the global one, or a session's (the chat's, or one pasted).
  let pasted = '';
  let useSession = required;
  const sessionInput = h('input', { type: 'password', autocomplete: 'off', placeholder: 'session_id', 'aria-label': 'Session id for news' });
  const sessionToggle = h('input', { type: 'checkbox', checked: required, disabled: required });
  scopeBox.append(
    h('label', { class: 'toggle' }, sessionToggle, required ? ' Per-session feed (required by the agent)' : ' Only this conversation'),
    h('label', { class: 'session-paste' }, ' or session ', sessionInput));
  const currentSession = () => (useSession ? pasted || session.id : undefined);

  let loop;
  const restart = () => {
    if (loop) loop.abort();
    loop = new AbortController();
    feed.replaceChildren();
    seen.clear();
    if (useSession && !currentSession()) {
      feed.append(h('li', { class: 'note' }, 'This feed is per session: send a message first, or paste a session id.'));
      return;
    }
    void follow(loop.signal);
  };
  sessionToggle.addEventListener('change', () => {
    useSession = sessionToggle.checked;
    restart();
  });
  sessionInput.addEventListener('change', () => {
    pasted = sessionInput.value.trim();
    restart();
  });
  session.listeners.add(() => useSession && !pasted && restart());

  const seen = new Set();
  const show = (items) => {
    for (const item of items) {
      if (seen.has(item.news_id)) continue;
      seen.add(item.news_id);
      feed.prepend(itemView(item));
    }
    while (feed.children.length > SHOWN) feed.lastElementChild.remove();
  };

  async function follow(signal) {
    let since = Math.max(0, serverNow() - BACKLOG_MS);
    let delay = 0;
    while (!signal.aborted) {
      try {
        const query = new URLSearchParams({ since: String(since) });
        if (wait) query.set('wait', String(wait));
        const id = currentSession();
        const response = await request(`${news.endpoint}?${query}`, { headers: id ? { [SESSION_ID_HEADER]: id } : {}, signal });
        if (!response.ok) {
          const failure = await readError(response);
          if (response.status === 401 || response.status === 403 || response.status === 400) {
            feed.prepend(h('li', { class: 'error' }, `${failure.message} (${failure.error})`));
            return;
          }
          throw new Error(failure.message);
        }
        const page = await readJson(response);
        show(page.items ?? []);
        since = Math.max(since, page.timestamp ?? since, ...(page.items ?? []).map((i) => i.timestamp ?? 0));
        delay = page.has_more ? 0 : wait ? 0 : POLL_MS;
      } catch (error) {
        if (signal.aborted) return;
        logError(`news: ${error.message ?? error}`);
        delay = Math.min(Math.max(delay * 2, 1000), 15000);
      }
      if (delay) await sleep(delay, signal);
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const status = form.querySelector('.form-status');
    const fields = new FormData(form);
    const item = { type: String(fields.get('type')).trim() };
    const from = String(fields.get('from') ?? '').trim();
    const message = String(fields.get('message') ?? '').trim();
    const data = String(fields.get('data') ?? '').trim();
    if (from) item.from = from;
    if (message) item.message = message;
    if (data) {
      try {
        item.data = JSON.parse(data);
      } catch {
        status.textContent = 'Data must be JSON.';
        status.className = 'form-status small error';
        return;
      }
    }
    const id = currentSession();
    if (required && !id) {
      status.textContent = 'This feed needs a session: send a message first, or paste a session id.';
      status.className = 'form-status small error';
      return;
    }
    const response = await request(receive.endpoint, { method: 'POST', json: item, headers: id ? { [SESSION_ID_HEADER]: id } : {} }).catch((error) => error);
    if (response instanceof Error) {
      status.textContent = `Network error: ${response.message}`;
      status.className = 'form-status small error';
      return;
    }
    if (response.ok) {
      const ack = await readJson(response);
      status.textContent = `Stored as ${ack?.news_id ?? 'an item'}; the agent will not reply.`;
      status.className = 'form-status small';
      form.elements.namedItem('message').value = '';
    } else {
      const failure = await readError(response);
      status.textContent = `${failure.message} (${failure.error})`;
      status.className = 'form-status small error';
    }
  });

  restart();
}

function itemView(item) {
  const { type, from, message, data, timestamp, news_id: id, in_reply_to: replyTo } = item;
  const when = typeof timestamp === 'number' ? new Date(timestamp) : undefined;
  return h('li', { class: 'news-item', 'data-news-id': id },
    h('div', { class: 'news-meta small' },
      h('span', { class: 'type' }, type ?? 'news'),
      from ? h('span', {}, ` from ${from}`) : null,
      replyTo ? h('span', { class: 'muted' }, ` ↩ ${replyTo}`) : null,
      when ? h('time', { datetime: when.toISOString(), class: 'muted' }, ` ${when.toLocaleTimeString()}`) : null),
    message ? h('p', { class: 'news-text' }, message) : null,
    data !== undefined ? h('details', {}, h('summary', { class: 'small' }, 'data'), h('pre', {}, pretty(data))) : null);
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
