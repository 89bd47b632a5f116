// One card per capability: a form from its input_schema and parameters, checked in the browser,
// sent to its endpoint; the result as JSON, the server's errors by field, and copy-ready snippets
// for each door the agent opens (RESTAP endpoint, MCP tool, A2A skill).
import { $, copyButton, h, pretty, shellQuote } from './dom.js';
import { hasApiKey, hasToken, readJson, request, logError } from './http.js';
import { editor, validate } from './schema-form.js';
import { insufficientScopeOf } from './oauth.js';
import { NEWS_CAPABILITY_ID, NEWS_RECEIVE_CAPABILITY_ID, TALK_CAPABILITY_ID } from './wire.generated.js';

/** Capabilities with a panel of their own. */
const PROTOCOL_IDS = new Set([TALK_CAPABILITY_ID, NEWS_CAPABILITY_ID, NEWS_RECEIVE_CAPABILITY_ID]);

/** MCP tool names cannot hold dots: `text.reverse` is the tool `text_reverse` (one-to-one). */
export const toolNameOf = (id) => id.replace(/\./g, '_');

/** Each card's sender by capability id: sends `{params, body}` as its form would. */
const senders = new Map();

/**
 * `stepUp(scopes, after)` (OAuth with a playground client): signs in again asking for `scopes`; a
 * 403 insufficient_scope offers it, and `after` (the call) is retried on return (retryCall).
 */
export function setupCapabilities(catalog, doors, stepUp) {
  const cards = $('cards');
  const list = (catalog.capabilities ?? []).filter((c) => c && !PROTOCOL_IDS.has(c.id));
  if (!list.length) cards.append(h('p', { class: 'muted' }, 'No capabilities besides talk and news.'));
  for (const capability of list) cards.append(card(capability, doors, stepUp));
}

/** Back from a step-up sign-in: the call that met 403 is sent again, with the new token. */
export function retryCall(after) {
  const send = senders.get(after?.capability);
  if (!send) return;
  $(`cap-${after.capability}`).scrollIntoView({ block: 'center' });
  void send(after.params ?? {}, after.body, 'Retried after signing in again: ');
}

function card(capability, doors, stepUp) {
  const parameters = Array.isArray(capability.parameters) ? capability.parameters : [];
  const schema = capability.input_schema && typeof capability.input_schema === 'object' ? capability.input_schema : undefined;
  const paramSchema = {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
  const paramEditor = parameters.length ? editor(paramSchema, paramSchema, '') : undefined;
  const bodyEditor = schema ? editor(schema, schema, '') : undefined;
  const result = h('pre', { class: 'result', hidden: true, tabindex: '0', 'aria-label': `${capability.id} result` });
  const status = h('p', { class: 'form-status small', role: 'status' });
  const run = h('button', { type: 'submit' }, 'Run');
  const form = h('form', { class: 'stack', novalidate: true, 'aria-label': capability.title ?? capability.id },
    paramEditor ? h('div', { class: 'params' }, h('h4', {}, 'Parameters'), paramEditor.el) : null,
    bodyEditor ? bodyEditor.el : h('p', { class: 'muted small' }, 'No request body.'),
    h('div', { class: 'buttons' }, run, copyButton('Copy curl', () => curl(capability, read()))),
    status, result);

  const read = () => ({ params: paramEditor ? paramEditor.read() : {}, body: bodyEditor ? bodyEditor.read() : undefined });
  const showErrors = (messages) => (paramEditor ? paramEditor.errors(messages) : 0) + (bodyEditor ? bodyEditor.errors(messages) : 0);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { params, body } = read();
    const problems = [...(paramEditor ? validate(paramSchema, paramSchema, params) : []), ...(bodyEditor ? validate(schema, schema, body ?? {}) : [])];
    showErrors(problems);
    result.hidden = true;
    if (problems.length) {
      status.textContent = `Not sent: ${problems.length} field${problems.length > 1 ? 's' : ''} to fix.`;
      status.className = 'form-status small error';
      return;
    }
    await send(params, body);
  });

  const send = async (params, body, prefix = '') => {
    run.disabled = true;
    status.replaceChildren('Sending…');
    status.className = 'form-status small';
    try {
      const response = await request(urlOf(capability, params), {
        method: capability.method,
        ...(body !== undefined && capability.method !== 'GET' ? { json: body } : {}),
        headers: { Accept: 'application/json' },
      });
      const json = await readJson(response);
      result.hidden = false;
      result.textContent = json === undefined ? '(empty body)' : pretty(json);
      result.classList.toggle('failed', !response.ok);
      if (response.ok) {
        status.textContent = `${prefix}${response.status} ${response.statusText}`;
      } else {
        // Each message goes under the field it names; the whole answer stays in the status line too.
        showErrors(serverErrors(json));
        status.textContent = `${response.status} ${json?.error ?? ''}: ${json?.message ?? response.statusText}`;
        status.className = 'form-status small error';
        const scopes = stepUp && insufficientScopeOf(response);
        if (scopes) {
          status.append(' ', h('button', { type: 'button', class: 'step-up', onclick: () => stepUp(scopes, { capability: capability.id, params, body }) },
            `Sign in again for ${scopes.join(' ')}`));
        }
      }
    } catch (error) {
      logError(String(error));
      status.textContent = `Network error: ${error.message ?? error}`;
      status.className = 'form-status small error';
    } finally {
      run.disabled = false;
    }
  };
  senders.set(capability.id, send);

  return h('article', { class: 'card', id: `cap-${capability.id}` },
    h('header', {},
      h('h3', {}, capability.title ?? capability.id),
      h('p', { class: 'small' }, h('code', { class: `method m-${capability.method}` }, capability.method), ' ', h('code', {}, capability.endpoint), ' ', h('span', { class: 'muted' }, capability.id))),
    capability.description ? h('p', {}, capability.description) : null,
    doorsView(capability, doors),
    form,
    snippets(capability, doors, read));
}

/** The server's `message` split back into fields: the sample's ValidationPipe writes `field: reason; other: reason`. */
export function serverErrors(body) {
  if (!body || typeof body.message !== 'string') return [];
  if (Array.isArray(body.errors)) {
    return body.errors.map((e) => ({ path: String(e.path ?? e.property ?? e.field ?? '').replace(/^\//, '').replace(/\//g, '.'), message: String(e.message ?? e.reason ?? '') }));
  }
  return body.message.split(/;\s+/).map((part) => {
    const match = /^([A-Za-z_$][\w$]*(?:(?:\.[A-Za-z_$][\w$]*)|\[\d+\])*):\s+(.+)$/.exec(part.trim());
    return match ? { path: match[1], message: match[2] } : { path: '', message: part };
  });
}

function urlOf(capability, params) {
  const parameters = Array.isArray(capability.parameters) ? capability.parameters : [];
  let path = capability.endpoint;
  const query = new URLSearchParams();
  for (const p of parameters) {
    const value = params[p.name];
    if (value === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else query.append(p.name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

function curl(capability, { params, body }) {
  const lines = [`curl -X ${capability.method} ${shellQuote(location.origin + urlOf(capability, params))}`];
  // A placeholder, never the credential itself: snippets get copied and pasted.
  if (hasApiKey()) lines.push(`  -H "Authorization: Bearer $RESTAP_API_KEY"`);
  if (hasToken()) lines.push(`  -H "Authorization: Bearer $ACCESS_TOKEN"`);
  if (body !== undefined && capability.method !== 'GET') {
    lines.push(`  -H 'content-type: application/json'`, `  -d ${shellQuote(JSON.stringify(body))}`);
  }
  return lines.join(' \\\n');
}

function doorsView(capability, doors) {
  const rows = [h('li', {}, h('b', {}, 'RESTAP '), h('code', {}, `${capability.method} ${capability.endpoint}`))];
  if (doors.mcp) rows.push(h('li', {}, h('b', {}, 'MCP tool '), h('code', {}, toolNameOf(capability.id)), h('span', { class: 'muted' }, ` at ${doors.mcp}`)));
  if (doors.a2a) rows.push(h('li', {}, h('b', {}, 'A2A skill '), h('code', {}, capability.id), h('span', { class: 'muted' }, ` at ${doors.a2a}`)));
  return h('ul', { class: 'door-list small', 'aria-label': 'Reach it through' }, rows);
}

function snippets(capability, doors, read) {
  const tabs = [
    ['curl', () => curl(capability, read())],
    ['fetch', () => {
      const { params, body } = read();
      return `const res = await fetch(${JSON.stringify(location.origin + urlOf(capability, params))}, {\n  method: '${capability.method}',\n  headers: { 'content-type': 'application/json'${hasApiKey() ? ", authorization: `Bearer ${process.env.RESTAP_API_KEY}`" : hasToken() ? ", authorization: `Bearer ${process.env.ACCESS_TOKEN}`" : ''} },\n${body !== undefined ? `  body: JSON.stringify(${JSON.stringify(body)}),\n` : ''}});\nconsole.log(await res.json());`;
    }],
  ];
  if (doors.mcp) {
    tabs.push(['MCP', () => `import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';\n\nconst client = new Client({ name: 'playground-snippet', version: '1.0.0' });\nawait client.connect(new StreamableHTTPClientTransport(new URL(${JSON.stringify(location.origin + doors.mcp)})));\nconst result = await client.callTool({ name: ${JSON.stringify(toolNameOf(capability.id))}, arguments: ${JSON.stringify(read().body ?? {})} });\nconsole.log(result.structuredContent ?? result.content);`]);
  }
  if (doors.a2a) {
    // A data part { capability, arguments } runs the capability without a model (A2A 1.0 JSON-RPC binding).
    tabs.push(['A2A', () => `curl -X POST ${shellQuote(location.origin + doors.a2a)} -H 'content-type: application/json' -H 'A2A-Version: 1.0' \\\n  -d ${shellQuote(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'playground-1', role: 'ROLE_USER', parts: [{ data: { capability: capability.id, arguments: read().body ?? {} } }] } } }))}`]);
  }
  const pre = h('pre', { class: 'snippet' });
  const buttons = tabs.map(([name, make], i) => h('button', { type: 'button', role: 'tab', 'aria-selected': i === 0 ? 'true' : 'false', onclick: (event) => {
    for (const b of buttons) b.setAttribute('aria-selected', b === event.currentTarget ? 'true' : 'false');
    pre.textContent = make();
    current = make;
  } }, name));
  let current = tabs[0][1];
  const details = h('details', { class: 'snippets' }, h('summary', {}, 'Client snippets'),
    h('div', { role: 'tablist' }, buttons), pre, copyButton('Copy', () => current()));
  details.addEventListener('toggle', () => details.open && (pre.textContent = current()));
  return details;
}
