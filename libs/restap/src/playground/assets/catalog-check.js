// The catalog checked against the spec's shape ("The Catalog Document", "Capability Fields",
// "Top-Level protocols Field", "Optional Packages"): each finding names where and what.
import { validate } from './schema-form.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const REQUIRED_EVENTS = ['message.start', 'message.delta', 'message.end', 'error', 'done'];
const ID = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z][A-Za-z0-9_-]*)*$/;

/** The spec's catalog shape as a schema (the subset the page's validator reads). */
const CATALOG_SHAPE = {
  type: 'object',
  required: ['restap_version', 'agent', 'capabilities'],
  properties: {
    restap_version: { type: 'string', minLength: 1 },
    agent: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, description: { type: 'string' }, contact: { type: 'string' } } },
    capabilities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'method', 'endpoint'],
        properties: {
          id: { type: 'string', minLength: 1 },
          title: { type: 'string', minLength: 1 },
          method: { enum: METHODS },
          endpoint: { type: 'string', pattern: '^/' },
          description: { type: 'string' },
          input_schema: { type: 'object' },
          output_schema: { type: 'object' },
          parameters: { type: 'array', items: { type: 'object', required: ['name', 'in', 'required', 'schema'], properties: { name: { type: 'string' }, in: { enum: ['path', 'query'] }, required: { type: 'boolean' }, schema: { type: 'object' } } } },
          content_types: { type: 'array', items: { type: 'string' } },
          output_formats: { type: 'array', items: { type: 'string' } },
          streaming: { type: 'object', required: ['supported'], properties: { supported: { type: 'boolean' }, transport: { const: 'sse' }, events: { type: 'array', items: { type: 'string' } } } },
          sessions: { type: 'object', required: ['supported'], properties: { supported: { type: 'boolean' }, required: { type: 'boolean' } } },
        },
      },
    },
    packages: { type: 'array', items: { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string' } } } },
    protocols: { type: 'object', additionalProperties: { type: 'object', required: ['available'], properties: { available: { type: 'boolean' }, endpoint: { type: 'string' } } } },
  },
};

/** [{ level: 'error' | 'warning' | 'ok', where, message }] */
export function checkCatalog(catalog) {
  const findings = validate(CATALOG_SHAPE, CATALOG_SHAPE, catalog).map((p) => ({ level: 'error', where: p.path || 'catalog', message: p.message }));
  const capabilities = Array.isArray(catalog?.capabilities) ? catalog.capabilities : [];
  const ids = new Map();
  capabilities.forEach((c, i) => {
    if (!c || typeof c.id !== 'string') return;
    if (ids.has(c.id)) findings.push({ level: 'error', where: `capabilities[${i}].id`, message: `duplicates capabilities[${ids.get(c.id)}] ("${c.id}"): ids must be unique` });
    ids.set(c.id, i);
    if (!ID.test(c.id)) findings.push({ level: 'warning', where: `capabilities[${i}].id`, message: `"${c.id}" is not a dotted identifier` });
    for (const p of Array.isArray(c.parameters) ? c.parameters : []) {
      if (p?.in === 'path' && typeof c.endpoint === 'string' && !c.endpoint.includes(`{${p.name}}`)) {
        findings.push({ level: 'warning', where: `capabilities[${i}].parameters`, message: `path parameter "${p.name}" does not appear in ${c.endpoint}` });
      }
    }
  });
  const talk = capabilities.find((c) => c?.id === 'talk');
  if (!talk) findings.push({ level: 'warning', where: 'capabilities', message: 'no "talk" capability: the agent cannot be talked to' });
  else {
    if (talk.method !== 'POST') findings.push({ level: 'error', where: 'talk.method', message: 'talk is POST' });
    if (talk.streaming?.supported) {
      const events = talk.streaming.events ?? [];
      const missing = REQUIRED_EVENTS.filter((e) => !events.includes(e));
      if (missing.length) findings.push({ level: 'error', where: 'talk.streaming.events', message: `a streaming server emits the required events; missing ${missing.join(', ')}` });
      if (!(talk.output_formats ?? []).includes('text/event-stream')) findings.push({ level: 'warning', where: 'talk.output_formats', message: 'streaming is supported but text/event-stream is not listed' });
    }
  }
  const news = capabilities.find((c) => c?.id === 'news');
  const receive = capabilities.find((c) => c?.id === 'news_receive');
  if (news && news.method !== 'GET') findings.push({ level: 'error', where: 'news.method', message: 'news is GET' });
  if (receive && receive.method !== 'POST') findings.push({ level: 'error', where: 'news_receive.method', message: 'news_receive is POST' });
  if (news && receive && news.endpoint !== receive.endpoint) findings.push({ level: 'warning', where: 'news_receive.endpoint', message: 'news and news_receive are one endpoint in the spec' });
  if (news && receive && Boolean(news.sessions?.required) !== Boolean(receive.sessions?.required)) {
    findings.push({ level: 'warning', where: 'news.sessions', message: 'news and news_receive declare different session requirements' });
  }
  for (const [name, protocol] of Object.entries(catalog?.protocols ?? {})) {
    if (protocol?.available && !protocol.endpoint) findings.push({ level: 'warning', where: `protocols.${name}`, message: 'available but no endpoint given' });
  }
  if (!findings.length) findings.push({ level: 'ok', where: 'catalog', message: `matches the spec's shape (${capabilities.length} capabilities)` });
  return findings;
}
