import { findNewsRead, findNewsWrite, findTalk, sessionRequired, sessionsAdvertised, streamingAdvertised } from '../catalog/catalog.lookup';
import type { CatalogCapability, RestapCatalog } from '../interfaces/catalog.interface';
import { DEFAULT_NEWS_PATH, DEFAULT_TALK_PATH, NEWS_CAPABILITY_ID, NEWS_RECEIVE_CAPABILITY_ID, SESSION_ID_HEADER, TALK_CAPABILITY_ID } from '../restap.constants';
import { exampleFor } from './schema-example';

const BUILT_IN = new Set([TALK_CAPABILITY_ID, NEWS_CAPABILITY_ID, NEWS_RECEIVE_CAPABILITY_ID]);

/** Claude Code skill names: lowercase letters, digits and hyphens, at most 64 characters. */
export function skillName(agentName: string): string {
  const slug = agentName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '');
  return slug || 'restap-agent';
}

/** Ends a text with a full stop unless it already ends a sentence. */
function sentence(text: string): string {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

/** Single-quotes for POSIX shells. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Absolute URL of an endpoint; `{param}` placeholders come out as readable `<param>`, not %7B…%7D. */
function absolute(baseUrl: string, endpoint: string): string {
  return new URL(endpoint, baseUrl).toString().replace(/%7B([^/%]+)%7D/gi, '<$1>');
}

function curlFor(baseUrl: string, capability: CatalogCapability): string {
  const method = capability.method.toUpperCase();
  const lines = [`curl -sS -X ${method} ${shellQuote(absolute(baseUrl, capability.endpoint))}`];
  if (method !== 'GET' && method !== 'HEAD') {
    lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(exampleFor(capability.input_schema ?? { type: 'object' })))}`);
  }
  return lines.join(' \\\n  ');
}

function capabilitySection(baseUrl: string, capability: CatalogCapability): string[] {
  const lines = [`### ${capability.id}${capability.title ? ` — ${capability.title}` : ''}`, '', `\`${capability.method.toUpperCase()} ${capability.endpoint}\``];
  if (capability.description) lines.push('', capability.description);
  if (capability.input_schema) lines.push('', 'Input schema (request body):', '', '```json', JSON.stringify(capability.input_schema, null, 2), '```');
  if (capability.output_schema) lines.push('', 'Output schema:', '', '```json', JSON.stringify(capability.output_schema, null, 2), '```');
  lines.push('', 'Example:', '', '```bash', curlFor(baseUrl, capability), '```', '');
  return lines;
}

function describeAgent(catalog: RestapCatalog, others: CatalogCapability[]): string {
  const what = catalog.agent.description ? `${catalog.agent.description.replace(/\.$/, '')}. ` : '';
  const can = others.length > 0 ? `Capabilities: ${others.map((c) => c.title ?? c.id).join(', ')}. ` : '';
  const text = `${what}${can}Use when a task needs ${catalog.agent.name}: ask it via /talk, call its capabilities directly, or exchange updates via /news.`;
  return text.length > 1024 ? `${text.slice(0, 1021)}...` : text;
}

/**
 * Renders a SKILL.md (Claude Code skills format) that teaches an AI client how to use an agent:
 * front matter, when to use it, talk (streaming, sessions) vs news semantics, each capability with
 * its schemas and a curl example.
 *
 * @example
 * await writeFile('SKILL.md', renderSkill(client.catalog, client.baseUrl));
 */
export function renderSkill(catalog: RestapCatalog, baseUrl: string): string {
  const talk = findTalk(catalog);
  const newsRead = findNewsRead(catalog);
  const newsWrite = findNewsWrite(catalog);
  const others = catalog.capabilities.filter((c) => !BUILT_IN.has(c.id) && c !== newsRead && c !== newsWrite);
  const talkUrl = absolute(baseUrl, talk?.endpoint ?? DEFAULT_TALK_PATH);
  const newsUrl = absolute(baseUrl, newsRead?.endpoint ?? DEFAULT_NEWS_PATH);
  const postUrl = absolute(baseUrl, newsWrite?.endpoint ?? newsRead?.endpoint ?? DEFAULT_NEWS_PATH);
  const scoped = sessionRequired(newsRead) || sessionRequired(newsWrite);
  const sessionHeader = `-H '${SESSION_ID_HEADER}: <session_id>'`;

  const lines = [
    '---',
    `name: ${skillName(catalog.agent.name)}`,
    `description: ${JSON.stringify(describeAgent(catalog, others))}`,
    '---',
    '',
    `# ${catalog.agent.name}`,
    '',
    `${sentence(catalog.agent.description ?? 'An AI agent')} It speaks RESTAP (REST Agent Protocol) at \`${baseUrl}\`; its catalog is \`${absolute(baseUrl, '.well-known/restap.json')}\`.`,
    '',
    '## When to use it',
    '',
    '- **Ask or delegate** something that needs an answer: `POST /talk` (the agent replies).',
    ...(others.length > 0 ? ['- **Call a capability** directly when one matches exactly: see Capabilities below (validate input against its schema).'] : []),
    '- **Read what it has done** (job results, replies, notes): `GET /news`.',
    '- **Deliver information it should absorb without answering** (a reply to its earlier question, a fact): `POST /news`.',
    '',
    '## Talk: POST /talk (gets a reply)',
    '',
    '```bash',
    `curl -sS -X POST ${shellQuote(talkUrl)} -H 'Content-Type: application/json' -H 'Accept: application/json' \\\n  -d '{"message": "What can you do?"}'`,
    '```',
    '',
    'Answer: `{"reply": "...", "session_id": "..."}`.',
  ];
  if (streamingAdvertised(talk)) {
    lines.push('', `Streaming: send \`Accept: text/event-stream, application/json\` (curl \`-N\`). Events: \`message.start\` → \`message.delta\` (append \`text\`) → \`message.end\` → \`done\`; \`error\` on failure; ignore events you do not know. Always check the response Content-Type: the server may answer JSON instead.`);
  }
  if (sessionsAdvertised(talk)) {
    lines.push('', `Sessions: the reply carries a \`session_id\` (also on \`message.start\` and \`done\` when streaming). Send it back on the next turn in the \`${SESSION_ID_HEADER}\` header (or as \`session_id\` in the body) to continue the conversation. **The session_id is a secret**: it can grant access to the conversation, so never put it in a URL, a log or a shared message.`);
  }
  lines.push(
    '',
    '## News: GET / POST /news (never gets a reply)',
    '',
    '/news is passive: the agent may store, read or act on what you post, but it **never sends a reply** — that is what keeps agents from replying to each other forever. Do not wait for an answer to a /news post; use /talk when you need one.',
    '',
    '```bash',
    `curl -sS ${shellQuote(`${newsUrl}?since=0`)}${scoped ? ` ${sessionHeader}` : ''}`,
    `curl -sS -X POST ${shellQuote(postUrl)} -H 'Content-Type: application/json'${scoped ? ` ${sessionHeader}` : ''} \\\n  -H 'Idempotency-Key: <uuid>' -d '{"type": "reply", "in_reply_to": "<id>", "message": "..."}'`,
    '```',
    '',
    'GET answers `{"items": [...], "timestamp": <ms>, "has_more": <bool>}`. Poll with `since` = the largest item `timestamp` you have seen (exclusive); while `has_more` is true, fetch again at once.',
  );
  if (scoped) lines.push('', `This agent's news is per session: every /news request needs the session_id in the \`${SESSION_ID_HEADER}\` header, else it answers 400 \`missing_session_id\`.`);
  if (others.length > 0) lines.push('', '## Capabilities', '', ...others.flatMap((c) => capabilitySection(baseUrl, c)));
  lines.push(
    '',
    '## Errors',
    '',
    'Errors are JSON `{"error": "<code>", "message": "..."}`. `invalid_session_id`: the session_id is malformed (must match `^[A-Za-z0-9._-]{16,128}$`); drop it and start a new session. `missing_session_id`: this endpoint needs a session.',
    '',
    '## From a shell',
    '',
    '```bash',
    `npx restap talk ${baseUrl} "What can you do?"`,
    `npx restap news ${baseUrl} --follow`,
    '```',
    '',
  );
  return lines.join('\n');
}
