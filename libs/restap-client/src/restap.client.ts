import { callCapability } from './capabilities/capability.caller';
import type { CapabilityCallOptions } from './capabilities/call.options';
import { SchemaValidator } from './capabilities/schema.validator';
import { locateCatalog, type CatalogLocation } from './catalog/catalog.location';
import { findNewsRead, findNewsWrite, findTalk, newsWaitSeconds, sessionRequired, streamingAdvertised } from './catalog/catalog.lookup';
import { validateCatalog } from './catalog/catalog.validator';
import { RestapError } from './errors/restap.error';
import { createTransport, errorFromResponse, mediaTypeOf, readText, type Transport } from './http/transport';
import type { CatalogCapability, RestapCatalog } from './interfaces/catalog.interface';
import type { RestapClientOptions } from './interfaces/options.interface';
import { NewsClient, sessionHeader } from './news/news.client';
import { ACCEPT_STREAM_OR_JSON, CONTENT_TYPE_JSON, DEFAULT_NEWS_PATH, DEFAULT_TALK_PATH, TALK_RESUME_EXTENSION } from './restap.constants';
import type { TalkOptions } from './talk/talk.options';
import { openTalk, type TalkPlan } from './talk/talk.request';
import { TalkStream, type TalkResult } from './talk/talk.stream';

/**
 * A typed client for one RESTAP agent, built from its catalog.
 *
 * @example
 * const agent = await RestapClient.discover('http://localhost:3000');
 * const { reply } = await agent.talk('Say hello');          // keeps the session for the next turn
 * for await (const e of agent.talkStream('And again')) if (e.event === 'message.delta') write(e.text);
 * await agent.news.post({ type: 'reply', message: 'blue' });
 * const echoed = await agent.call('text.echo', { text: 'hi' });
 */
export class RestapClient {
  /** Capabilities by id. */
  readonly capabilities: ReadonlyMap<string, CatalogCapability>;
  /** GET / POST /news. */
  readonly news: NewsClient;
  readonly baseUrl: string;
  readonly catalogUrl: string;
  private readonly transport: Transport;
  private readonly validator = new SchemaValidator();
  private sessionId_?: string;

  /** Prefer {@link RestapClient.discover}; use this with a catalog you already hold. */
  constructor(
    readonly catalog: RestapCatalog,
    location: CatalogLocation | string,
    opts: RestapClientOptions = {},
  ) {
    const where = typeof location === 'string' ? locateCatalog(location) : location;
    this.baseUrl = where.baseUrl;
    this.catalogUrl = where.catalogUrl;
    this.transport = createTransport(where.baseUrl, opts);
    this.capabilities = new Map(catalog.capabilities.map((c) => [c.id, c]));
    this.sessionId_ = opts.sessionId;
    const newsRead = findNewsRead(catalog);
    const newsWrite = findNewsWrite(catalog);
    this.news = new NewsClient({
      transport: this.transport,
      readEndpoint: newsRead?.endpoint ?? DEFAULT_NEWS_PATH,
      writeEndpoint: newsWrite?.endpoint ?? newsRead?.endpoint ?? DEFAULT_NEWS_PATH,
      maxWaitSeconds: newsWaitSeconds(newsRead),
      defaultSessionId: (direction) => (sessionRequired(direction === 'read' ? newsRead : newsWrite) ? this.sessionId_ : undefined),
    });
  }

  /**
   * Fetches and validates `/.well-known/restap.json`. `url` is the agent's base URL or the catalog
   * URL. Rejects with `network_error` / `timeout` when unreachable, `not_restap` when there is no
   * JSON catalog there, `invalid_catalog` when its shape is wrong.
   */
  static async discover(url: string, opts: RestapClientOptions = {}): Promise<RestapClient> {
    const location = locateCatalog(url);
    const transport = createTransport(location.baseUrl, opts);
    const response = await transport.send({
      method: 'GET',
      endpoint: location.catalogUrl,
      headers: { Accept: CONTENT_TYPE_JSON },
      signal: opts.signal,
    });
    if (!response.ok) {
      const cause = await errorFromResponse(response);
      throw new RestapError('not_restap', `No RESTAP catalog at ${location.catalogUrl} (HTTP ${response.status})`, {
        status: response.status,
        details: cause.details,
        cause,
      });
    }
    const text = await readText(response, transport.timeoutMs);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      throw new RestapError('not_restap', `${location.catalogUrl} is not JSON (${mediaTypeOf(response) || 'no Content-Type'})`, {
        status: response.status,
      });
    }
    const { catalog, problems } = validateCatalog(parsed);
    if (!catalog) {
      throw new RestapError('invalid_catalog', `${location.catalogUrl} is not a valid RESTAP catalog: ${problems.join('; ')}`, {
        status: response.status,
        details: problems,
      });
    }
    return new RestapClient(catalog, location, opts);
  }

  /** The session the next talk turn continues (the last one the server returned). */
  get sessionId(): string | undefined {
    return this.sessionId_;
  }

  /** Starts a fresh thread on the next turn, or switches to `sessionId`. */
  resetSession(sessionId?: string): void {
    this.sessionId_ = sessionId;
  }

  /** True when the talk capability advertises SSE streaming. */
  get streaming(): boolean {
    return streamingAdvertised(findTalk(this.catalog));
  }

  /** Looks up a capability by id. */
  capability(id: string): CatalogCapability | undefined {
    return this.capabilities.get(id);
  }

  /**
   * One /talk turn as a complete JSON reply.
   *
   * @example
   * const { reply, sessionId } = await agent.talk('What can you do?');
   */
  async talk(message: string, opts: TalkOptions = {}): Promise<TalkResult> {
    return this.openTalk(message, opts, CONTENT_TYPE_JSON).result();
  }

  /**
   * One /talk turn as a stream of events. Asks for SSE but accepts JSON; a JSON answer (or a 406)
   * is replayed as start/delta/end/done so callers handle one shape. Nothing is sent until the
   * stream is iterated.
   *
   * @example
   * const stream = agent.talkStream('Say hello');
   * for await (const e of stream) if (e.event === 'message.delta') process.stdout.write(e.text);
   */
  talkStream(message: string, opts: TalkOptions = {}): TalkStream {
    return this.openTalk(message, opts, ACCEPT_STREAM_OR_JSON);
  }

  /**
   * Calls a capability by id. The body is validated against `input_schema` first (`invalid_input`
   * lists every problem), and a JSON answer against `output_schema` (`invalid_output`).
   *
   * @example
   * const out = await agent.call<{ echoed_text: string }>('text.echo', { text: 'hi' });
   * await agent.call('jobs.get', undefined, { params: { id: 'job_1' } });
   */
  async call<T = unknown>(capabilityId: string, body?: unknown, opts: CapabilityCallOptions = {}): Promise<T> {
    const capability = this.capabilities.get(capabilityId);
    if (!capability) {
      const known = [...this.capabilities.keys()].join(', ');
      throw new RestapError('unknown_capability', `The catalog has no capability "${capabilityId}" (known: ${known})`);
    }
    return (await callCapability(this.transport, this.validator, capability, body, opts)) as T;
  }

  private openTalk(message: string, opts: TalkOptions, accept: string): TalkStream {
    const useSession = opts.session !== false;
    const sessionId = opts.sessionId ?? (useSession ? this.sessionId_ : undefined);
    if (opts.sessionId !== undefined) this.sessionId_ = opts.sessionId;
    const endpoint = findTalk(this.catalog)?.endpoint ?? DEFAULT_TALK_PATH;
    return new TalkStream(
      () =>
        openTalk({
          transport: this.transport,
          endpoint,
          // Body and header both: the header keeps working on servers that read only one of them.
          body: sessionId === undefined ? { message } : { message, session_id: sessionId },
          headers: { ...sessionHeader(sessionId), ...opts.headers },
          accept,
          signal: opts.signal,
          timeoutMs: opts.timeoutMs,
          ...resumePlan(findTalk(this.catalog), opts.resume),
        }),
      (returned) => {
        if (useSession || opts.sessionId !== undefined) this.sessionId_ = returned;
      },
    );
  }
}

/** How to resume a dropped stream: from the talk capability's `x-restap-resume`, unless the caller said no. */
function resumePlan(talk: CatalogCapability | undefined, option: TalkOptions['resume']): Pick<TalkPlan, 'resume'> {
  const declared = talk?.[TALK_RESUME_EXTENSION] as { endpoint?: unknown } | undefined;
  if (option === false || typeof declared?.endpoint !== 'string' || !declared.endpoint.includes('{message_id}')) return {};
  return { resume: { endpoint: declared.endpoint, attempts: option?.attempts ?? 5, backoffMs: option?.backoffMs ?? 500 } };
}
