// The catalog checked against the spec's shape ("The Catalog Document", "Capability Fields",
// "Top-Level protocols Field", "Optional Packages"): each finding names where and what.
import { validate } from './schema-form.js';
import {
  CAPABILITY_ID_PATTERN,
  CONTENT_TYPE_SSE,
  NEWS_CAPABILITY_ID,
  NEWS_RECEIVE_CAPABILITY_ID,
  RESTAP_CATALOG_SCHEMA,
  SSE_REQUIRED_EVENTS,
  TALK_CAPABILITY_ID,
} from './wire.generated.js';

/** [{ level: 'error' | 'warning' | 'ok', where, message }] */
export function checkCatalog(catalog) {
  const findings = validate(RESTAP_CATALOG_SCHEMA, RESTAP_CATALOG_SCHEMA, catalog).map((p) => ({ level: 'error', where: p.path || 'catalog', message: p.message }));
  const capabilities = Array.isArray(catalog?.capabilities) ? catalog.capabilities : [];
  const ids = new Map();
  capabilities.forEach((c, i) => {
    if (!c || typeof c.id !== 'string') return;
    if (ids.has(c.id)) findings.push({ level: 'error', where: `capabilities[${i}].id`, message: `duplicates capabilities[${ids.get(c.id)}] ("${c.id}"): ids must be unique` });
    ids.set(c.id, i);
    if (!CAPABILITY_ID_PATTERN.test(c.id)) findings.push({ level: 'warning', where: `capabilities[${i}].id`, message: `"${c.id}" is not a dotted identifier` });
    for (const p of Array.isArray(c.parameters) ? c.parameters : []) {
      if (p?.in === 'path' && typeof c.endpoint === 'string' && !c.endpoint.includes(`{${p.name}}`)) {
        findings.push({ level: 'warning', where: `capabilities[${i}].parameters`, message: `path parameter "${p.name}" does not appear in ${c.endpoint}` });
      }
    }
  });
  const talk = capabilities.find((c) => c?.id === TALK_CAPABILITY_ID);
  if (!talk) findings.push({ level: 'warning', where: 'capabilities', message: 'no "talk" capability: the agent cannot be talked to' });
  else {
    if (talk.method !== 'POST') findings.push({ level: 'error', where: 'talk.method', message: 'talk is POST' });
    if (talk.streaming?.supported) {
      const events = talk.streaming.events ?? [];
      const missing = SSE_REQUIRED_EVENTS.filter((e) => !events.includes(e));
      if (missing.length) findings.push({ level: 'error', where: 'talk.streaming.events', message: `a streaming server emits the required events; missing ${missing.join(', ')}` });
      if (!(talk.output_formats ?? []).includes(CONTENT_TYPE_SSE)) findings.push({ level: 'warning', where: 'talk.output_formats', message: 'streaming is supported but text/event-stream is not listed' });
    }
  }
  const news = capabilities.find((c) => c?.id === NEWS_CAPABILITY_ID);
  const receive = capabilities.find((c) => c?.id === NEWS_RECEIVE_CAPABILITY_ID);
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
