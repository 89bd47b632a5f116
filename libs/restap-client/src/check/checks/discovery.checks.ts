import { findTalk, streamingAdvertised } from '../../catalog/catalog.lookup';
import { fitsCatalogPart } from '../../catalog/catalog.shape';
import { isRecord } from '../../catalog/catalog.validator';
import { SchemaValidator } from '../../capabilities/schema.validator';
import { isJsonMediaType } from '../../http/transport';
import type { RestapCatalog } from '../../interfaces/catalog.interface';
import { CATALOG_PATH, CONTENT_TYPE_SSE, SSE_REQUIRED_EVENTS } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { hasTalk } from '../check.predicates';
import { catalogRequest, describe } from '../check.probe';
import type { CheckDefinition } from '../check.types';

const always = (): boolean => true;

function capabilityRecords(catalog: RestapCatalog): Record<string, unknown>[] {
  return Array.isArray(catalog.capabilities) ? (catalog.capabilities as unknown[]).filter(isRecord) : [];
}

/** The raw catalog exchange, fetched once by the runner and shared here. */
async function catalogProbe(ctx: CheckContext) {
  return ctx.once('catalog', () => ctx.request(catalogRequest(ctx.location)));
}

/** Spec, "High Level Architecture" and "The Catalog Document". */
export const discoveryChecks: CheckDefinition[] = [
  {
    id: 'discovery.catalog-json',
    level: 'MUST',
    group: 'discovery',
    title: `GET ${CATALOG_PATH} returns a JSON object`,
    spec: 'Agents publish their capabilities via /.well-known/restap.json for clients to discover.',
    applies: always,
    async run(ctx: CheckContext) {
      const probe = await catalogProbe(ctx);
      ctx.expect(probe.status === 200, `expected 200, got ${describe(probe)}`);
      ctx.expect(isRecord(probe.json), `the body is not a JSON object: ${describe(probe)}`);
      ctx.expect(isJsonMediaType(probe.type), `Content-Type is "${probe.type}", expected application/json`);
    },
  },
  {
    id: 'discovery.restap-version',
    level: 'MUST',
    group: 'discovery',
    title: 'restap_version is a string',
    spec: '{ "restap_version": "1.0", … } (The Catalog Document)',
    applies: always,
    async run(ctx: CheckContext) {
      ctx.expect(typeof ctx.catalog.restap_version === 'string', `restap_version is ${JSON.stringify(ctx.catalog.restap_version)}`);
      return `restap_version ${ctx.catalog.restap_version}`;
    },
  },
  {
    id: 'discovery.agent-name',
    level: 'MUST',
    group: 'discovery',
    title: 'agent.name is a non-empty string',
    spec: '"agent": { "name": "Text Analysis Agent", … } (The Catalog Document)',
    applies: always,
    async run(ctx: CheckContext) {
      const agent: unknown = ctx.catalog.agent;
      ctx.expect(isRecord(agent) && fitsCatalogPart('agent.name', agent.name), 'agent.name is missing or empty');
    },
  },
  {
    id: 'discovery.capabilities-shape',
    level: 'MUST',
    group: 'discovery',
    title: 'capabilities[] each have id, method and endpoint',
    spec: 'Each capability specifies the HTTP method, endpoint path, input/output schemas, and other metadata needed for proper API interaction.',
    applies: always,
    async run(ctx: CheckContext) {
      const list: unknown = ctx.catalog.capabilities;
      ctx.expect(Array.isArray(list), 'capabilities is not an array');
      const bad = (list as unknown[]).flatMap((c, i) =>
        isRecord(c) && ['id', 'method', 'endpoint'].every((f) => typeof c[f] === 'string' && c[f] !== '') ? [] : [`capabilities[${i}]`],
      );
      ctx.expect(bad.length === 0, `missing id/method/endpoint: ${bad.join(', ')}`);
      return `${(list as unknown[]).length} capabilities`;
    },
  },
  {
    id: 'discovery.unique-ids',
    level: 'MUST',
    group: 'discovery',
    title: 'capability ids are unique',
    spec: 'id: Unique identifier for the capability',
    applies: always,
    async run(ctx: CheckContext) {
      const ids = capabilityRecords(ctx.catalog).map((c) => c.id);
      const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
      ctx.expect(dupes.length === 0, `duplicate ids: ${[...new Set(dupes)].join(', ')}`);
    },
  },
  {
    id: 'discovery.talk-advertised',
    level: 'MUST',
    group: 'discovery',
    title: 'a POST talk capability is advertised',
    spec: 'Agents implement POST /talk as a one-directional entrypoint where the agent receives queries and triggers an LLM response.',
    applies: always,
    async run(ctx: CheckContext) {
      ctx.expect(ctx.talk, 'no capability with id "talk"');
      ctx.expect(ctx.talk.method.toUpperCase() === 'POST', `talk uses ${ctx.talk.method}, expected POST`);
      return `POST ${ctx.talk.endpoint}`;
    },
  },
  {
    id: 'discovery.news-advertised',
    level: 'MUST',
    group: 'discovery',
    title: 'GET and POST news capabilities are advertised',
    spec: '/news - Single bidirectional endpoint: GET /news - Read updates … POST /news - Write messages/replies (Minimal Endpoint Set)',
    applies: always,
    async run(ctx: CheckContext) {
      ctx.expect(ctx.newsRead, 'no GET news capability (id "news")');
      ctx.expect(ctx.newsWrite, 'no POST news capability (id "news_receive")');
      return `GET ${ctx.newsRead.endpoint}, POST ${ctx.newsWrite.endpoint}`;
    },
  },
  {
    id: 'discovery.streaming-shape',
    level: 'MUST',
    group: 'discovery',
    title: 'streaming object lists transport sse and the required events',
    spec: 'REQUIRED for basic compatibility (every streaming server MUST emit these …): message.start, message.delta, message.end, error, done',
    when: 'streaming advertised',
    applies: (catalog) => isRecord(findTalk(catalog)?.streaming),
    async run(ctx: CheckContext) {
      const streaming = ctx.talk?.streaming as unknown;
      ctx.expect(isRecord(streaming) && fitsCatalogPart('streaming.supported', streaming.supported), 'streaming.supported must be a boolean');
      if (streaming.supported !== true) return 'streaming.supported is false';
      ctx.expect(streaming.transport === undefined || fitsCatalogPart('streaming.transport', streaming.transport), `transport is ${JSON.stringify(streaming.transport)}, expected "sse"`);
      const events = Array.isArray(streaming.events) ? streaming.events : [];
      const missing = SSE_REQUIRED_EVENTS.filter((e) => !events.includes(e));
      ctx.expect(missing.length === 0, `streaming.events lacks ${missing.join(', ')}`);
    },
  },
  {
    id: 'discovery.output-formats-match',
    level: 'SHOULD',
    group: 'discovery',
    title: 'output_formats and streaming.supported agree',
    spec: 'On talk, listing text/event-stream signals that streaming is available via content negotiation.',
    when: 'talk advertised',
    applies: hasTalk,
    async run(ctx: CheckContext) {
      const formats: unknown = ctx.talk?.output_formats;
      const streaming: unknown = ctx.talk?.streaming;
      if (!Array.isArray(formats) || !isRecord(streaming)) return 'only one of output_formats / streaming is given';
      const listed = formats.includes(CONTENT_TYPE_SSE);
      const flagged = streaming.supported === true;
      ctx.expect(listed === flagged, `output_formats ${listed ? 'lists' : 'omits'} text/event-stream but streaming.supported is ${String(flagged)}`);
      return streamingAdvertised(ctx.talk) ? 'streaming advertised' : 'JSON only';
    },
  },
  {
    id: 'discovery.protocols-shape',
    level: 'MUST',
    group: 'discovery',
    title: 'protocols entries are {available, endpoint?}',
    spec: 'Each entry is { "available": boolean, "endpoint"?: string }.',
    when: 'protocols present',
    applies: (catalog) => catalog.protocols !== undefined,
    async run(ctx: CheckContext) {
      const protocols: unknown = ctx.catalog.protocols;
      ctx.expect(isRecord(protocols), 'protocols is not an object');
      const bad = Object.entries(protocols).filter(([, p]) => !fitsCatalogPart('protocols.*', p));
      ctx.expect(bad.length === 0, `malformed: ${bad.map(([k]) => k).join(', ')}`);
    },
  },
  {
    id: 'discovery.packages-shape',
    level: 'MUST',
    group: 'discovery',
    title: 'packages have name and type',
    spec: 'Name and type are required fields, plus any additional metadata that helps clients understand and use your package effectively.',
    when: 'packages present',
    applies: (catalog) => catalog.packages !== undefined,
    async run(ctx: CheckContext) {
      const packages: unknown = ctx.catalog.packages;
      ctx.expect(Array.isArray(packages), 'packages is not an array');
      const bad = packages.flatMap((p: unknown, i: number) => (fitsCatalogPart('packages[]', p) ? [] : [`packages[${i}]`]));
      ctx.expect(bad.length === 0, `missing name/type: ${bad.join(', ')}`);
    },
  },
  {
    id: 'discovery.schemas-compile',
    level: 'SHOULD',
    group: 'discovery',
    title: 'input/output schemas are valid JSON Schema',
    spec: 'The input/output schemas use standard JSON Schema format to provide precise API contracts for clients.',
    when: 'a capability has a schema',
    applies: (catalog) => capabilityRecords(catalog).some((c) => c.input_schema !== undefined || c.output_schema !== undefined),
    async run(ctx: CheckContext) {
      const validator = new SchemaValidator();
      const broken: string[] = [];
      for (const c of capabilityRecords(ctx.catalog)) {
        for (const field of ['input_schema', 'output_schema'] as const) {
          const schema = c[field];
          if (schema === undefined) continue;
          try {
            if (!isRecord(schema)) throw new Error('not an object');
            validator.validate(`${String(c.id)}#${field}`, schema, {});
          } catch {
            broken.push(`${String(c.id)}.${field}`);
          }
        }
      }
      ctx.expect(broken.length === 0, `invalid schemas: ${broken.join(', ')}`);
    },
  },
];
