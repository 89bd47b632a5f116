// The playground's entry module: reads the catalog, then builds the header, the chat, the
// capability cards, the news feed and the catalog check from it.
import { $, h } from './dom.js';
import { clearCredential, readJson, request, setCredential, setKeyPrompt } from './http.js';
import { completeSignIn, discover, oauthEntryOf, signIn } from './oauth.js';
import { setupChat, turnWaiting } from './chat.js';
import { retryCall, setupCapabilities } from './capabilities.js';
import { setupNews } from './news.js';
import { setupFrames } from './frames.js';
import { checkCatalog } from './catalog-check.js';
import { NEWS_CAPABILITY_ID, NEWS_RECEIVE_CAPABILITY_ID, TALK_CAPABILITY_ID } from './wire.generated.js';

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? '';
const catalogPath = meta('restap-catalog');
const basePath = meta('restap-playground');
/** The playground's client at the authorization server (auth.oauth.playgroundClientId); empty: paste a token. */
const oauthClientId = meta('restap-oauth-client');

async function main() {
  setupFrames();
  /** OAuth as the catalog declares it: its entry, then what discovery found; the scopes the held token was granted. */
  const auth = { entry: undefined, config: undefined, scopes: [] };
  setKeyPrompt(keyPrompt(auth));
  // Back from the authorization server: the code is exchanged before the page sends any request.
  let after;
  try {
    const signedIn = await completeSignIn();
    if (signedIn) {
      setCredential(signedIn.token, 'token');
      auth.scopes = signedIn.scope.split(' ').filter(Boolean);
      after = signedIn.after;
      showSignedIn(`Signed in with ${new URL(signedIn.issuer).host}${signedIn.expiresAt ? ` until ${new Date(signedIn.expiresAt).toLocaleTimeString()}` : ''}`);
    }
  } catch (error) {
    showBanner(`Sign-in failed: ${error.message ?? error}`);
  }
  let catalog;
  let clockOffset = 0;
  try {
    const response = await request(catalogPath, { headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    const date = Date.parse(response.headers.get('date') ?? '');
    if (!Number.isNaN(date)) clockOffset = date - Date.now();
    catalog = await readJson(response);
    if (!catalog || typeof catalog !== 'object') throw new Error('the catalog is not JSON');
  } catch (error) {
    showBanner(`Could not read the catalog at ${catalogPath}: ${error.message ?? error}`);
    $('agent-description').textContent = '';
    return;
  }
  auth.entry = oauthEntryOf(catalog);
  if (auth.entry) {
    const button = $('key-button');
    button.textContent = 'Sign in…';
    button.hidden = false;
  }
  const capabilities = Array.isArray(catalog.capabilities) ? catalog.capabilities : [];
  const byId = (id) => capabilities.find((c) => c && c.id === id);
  const doors = openDoors(catalog.protocols);
  header(catalog, doors);
  setupChat(byId(TALK_CAPABILITY_ID));
  setupNews(byId(NEWS_CAPABILITY_ID), byId(NEWS_RECEIVE_CAPABILITY_ID), () => Date.now() + clockOffset);
  setupCapabilities(catalog, doors, auth.entry && oauthClientId ? (scopes, call) => void stepUp(auth, scopes, call) : undefined);
  const findings = checkCatalog(catalog);
  $('findings').append(...findings.map((f) => h('li', { class: `finding ${f.level}` },
    h('span', { class: 'level' }, f.level), ' ', h('code', {}, f.where), ' ', f.message)));
  document.body.dataset.ready = 'true';
  if (after) retryCall(after);
}

/** Endpoints of the MCP and A2A doors when the catalog says they are available. */
function openDoors(protocols) {
  const doors = {};
  for (const name of ['mcp', 'a2a']) {
    const entry = protocols && protocols[name];
    if (entry && entry.available === true && typeof entry.endpoint === 'string') doors[name] = entry.endpoint;
  }
  return doors;
}

function header(catalog, doors) {
  const agent = catalog.agent ?? {};
  document.title = `${agent.name ?? 'Agent'} · RESTAP playground`;
  $('agent-name').textContent = agent.name ?? 'Unnamed agent';
  $('agent-description').textContent = agent.description ?? '';
  const contact = agent.contact;
  if (typeof contact === 'string' && contact) {
    const href = /^https?:\/\//.test(contact) ? contact : /@/.test(contact) ? `mailto:${contact}` : undefined;
    $('agent-contact').append('Contact: ', href ? h('a', { href }, contact) : contact);
  }
  const chips = [h('li', { class: 'chip on' }, h('b', {}, 'RESTAP '), h('code', {}, catalogPath))];
  for (const [name, label] of [['mcp', 'MCP'], ['a2a', 'A2A']]) {
    const entry = catalog.protocols?.[name];
    chips.push(doors[name]
      ? h('li', { class: 'chip on' }, h('b', {}, `${label} `), h('code', {}, doors[name]))
      : h('li', { class: 'chip off', title: entry ? 'advertised as unavailable' : 'not advertised' }, `${label} off`));
  }
  for (const [name, entry] of Object.entries(catalog.protocols ?? {})) {
    if (name !== 'mcp' && name !== 'a2a' && entry?.available) chips.push(h('li', { class: 'chip on' }, h('b', {}, `${name} `), entry.endpoint ? h('code', {}, entry.endpoint) : ''));
  }
  $('doors').replaceChildren(...chips);
  const packages = Array.isArray(catalog.packages) ? catalog.packages : [];
  $('packages').replaceChildren(...packages.map((p) => {
    const link = typeof p.homepage === 'string' && /^https?:\/\//.test(p.homepage) ? p.homepage : undefined;
    const name = link ? h('a', { href: link, target: '_blank', rel: 'noopener' }, p.name) : p.name;
    return h('li', { class: 'chip', title: p.description ?? '' }, name, h('span', { class: 'muted' }, ` ${p.type}${p.package ? ` · ${p.package}` : ''}`));
  }));
}

function showBanner(text) {
  const banner = $('load-error');
  banner.hidden = false;
  banner.textContent = text;
}

function showSignedIn(text) {
  $('auth-status').textContent = text;
  $('auth-status').hidden = false;
  $('sign-out').hidden = false;
}

$('sign-out').addEventListener('click', () => {
  clearCredential();
  $('auth-status').hidden = true;
  $('sign-out').hidden = true;
});

/**
 * The dialog says what the agent takes: an API key, or (the catalog's io.restap/oauth) an OAuth
 * access token, got by signing in when the playground has a client id, or pasted.
 */
function dressDialog(auth) {
  const oauth = auth.entry !== undefined;
  $('key-title').textContent = oauth ? 'Sign-in needed' : 'API key needed';
  $('key-label').textContent = oauth ? 'Access token' : 'API key';
  $('key-submit').textContent = oauth ? 'Use token' : 'Use key';
  const text = $('key-text');
  if (oauth) {
    text.replaceChildren(`This agent takes OAuth access tokens for ${auth.entry.resource}. Sign in, or paste a token: it stays in this tab's memory only and is sent as `, h('code', {}, 'Authorization: Bearer'), ' to this agent only.');
    // After a reload the token is gone (memory only) but the turn was kept: it goes on once signed in.
    if (turnWaiting()) text.append(' The reply in progress is picked up again once you are signed in.');
  }
  $('sign-in-block').hidden = !oauth;
  $('sign-in').hidden = !oauthClientId;
  $('sign-in-note').textContent = oauth && !oauthClientId ? 'No playground client is configured (auth.oauth.playgroundClientId): paste a token.' : '';
}

/**
 * Step-up (403 insufficient_scope, the card's offer clicked): sign in again asking for the scopes
 * held and the ones the agent named; the call is retried once back.
 */
function stepUp(auth, scopes, call) {
  return startSignIn(auth, [...new Set([...auth.scopes, ...scopes])].join(' '), call);
}

/**
 * Sign in: discovery (catalog → protected resource metadata → authorization server), then the
 * redirect: for `scope` on a step-up, else for the metadata's scopes.
 */
async function startSignIn(auth, scope, after) {
  const note = $('sign-in-note');
  note.textContent = 'Finding the authorization server…';
  try {
    auth.config ??= await discover(auth.entry);
    note.textContent = `Signing in with ${new URL(auth.config.issuer).host}…`;
    await signIn(auth.config, oauthClientId, basePath, { scope, after });
  } catch (error) {
    note.textContent = `Cannot sign in: ${error.message ?? error}`;
    if (!$('key-dialog').open) showBanner(note.textContent);
  }
}

/** On 401: one dialog at a time asks for the key or token; it stays in this tab's memory only. */
function keyPrompt(auth) {
  const dialog = $('key-dialog');
  const form = $('key-form');
  const input = $('api-key');
  const button = $('key-button');
  $('sign-in').addEventListener('click', () => void startSignIn(auth));
  let pending;
  const ask = () => {
    dressDialog(auth);
    pending ??= new Promise((resolve) => {
      const done = (given) => {
        form.removeEventListener('submit', onSubmit);
        $('key-cancel').removeEventListener('click', onCancel);
        dialog.removeEventListener('cancel', onCancel);
        if (dialog.open) dialog.close();
        pending = undefined;
        resolve(given);
      };
      const onSubmit = (event) => {
        event.preventDefault();
        const key = input.value.trim();
        if (!key) return;
        setCredential(key, auth.entry ? 'token' : 'key');
        input.value = '';
        button.hidden = false;
        if (auth.entry) showSignedIn('Using a pasted token');
        done(true);
      };
      const onCancel = (event) => {
        event.preventDefault();
        done(false);
      };
      form.addEventListener('submit', onSubmit);
      $('key-cancel').addEventListener('click', onCancel);
      dialog.addEventListener('cancel', onCancel);
      dialog.showModal();
      input.focus();
    });
    return pending;
  };
  button.addEventListener('click', () => void ask());
  return ask;
}

main();
