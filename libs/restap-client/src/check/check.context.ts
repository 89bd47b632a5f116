import type { CatalogLocation } from '../catalog/catalog.location';
import { findNewsRead, findNewsWrite, findTalk } from '../catalog/catalog.lookup';
import { isRecord } from '../catalog/catalog.validator';
import type { Transport } from '../http/transport';
import type { CatalogCapability, RestapCatalog } from '../interfaces/catalog.interface';
import { CONTENT_TYPE_JSON, SESSION_ID_HEADER } from '../restap.constants';
import { AuthenticationRequired, CheckFailure, CheckSkipped } from './check.outcome';
import { sendProbe, type Probe, type ProbeRequest } from './check.probe';

/** Message sent to /talk: short, so probing an LLM-backed agent stays cheap. */
export const PROBE_MESSAGE = 'Say hello';

/**
 * What every check receives: the catalog, raw HTTP probes, and memoised shared probes so that
 * several rules judge one exchange instead of each paying for another LLM turn.
 */
export class CheckContext {
  readonly talk?: CatalogCapability;
  readonly newsRead?: CatalogCapability;
  readonly newsWrite?: CatalogCapability;
  private readonly memo = new Map<string, Promise<unknown>>();
  /** Set once any probe was answered 401 (the run lacks credentials). */
  authRequired = false;

  constructor(
    readonly catalog: RestapCatalog,
    readonly location: CatalogLocation,
    private readonly transport: Transport,
    readonly timeoutMs: number,
  ) {
    this.talk = findTalk(catalog);
    this.newsRead = findNewsRead(catalog);
    this.newsWrite = findNewsWrite(catalog);
  }

  /**
   * Sends a probe exactly as given. A 401 ends the rule as not exercised (AuthenticationRequired):
   * no rule of RESTAP expects 401, so judging that answer would count a refusal as a pass or a failure.
   */
  async request(request: ProbeRequest): Promise<Probe> {
    const probe = await sendProbe(this.transport, request, this.timeoutMs);
    if (probe.status === 401) {
      this.authRequired = true;
      throw new AuthenticationRequired();
    }
    return probe;
  }

  /** Runs `fn` once per key for the whole run; later callers share the result (or the failure). */
  once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let pending = this.memo.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = fn();
      this.memo.set(key, pending);
    }
    return pending;
  }

  /** Seeds a memoised result (the runner's catalog fetch) so checks share it. */
  prime<T>(key: string, value: T): void {
    this.memo.set(key, Promise.resolve(value));
  }

  /** POST talk `{message}` (plus an optional session_id in body / header) with a given Accept. */
  postTalk(accept: string | undefined, extra: { sessionId?: string; headerSessionId?: string; message?: string } = {}): Promise<Probe> {
    const headers: Record<string, string> = {};
    if (accept !== undefined) headers.Accept = accept;
    if (extra.headerSessionId !== undefined) headers[SESSION_ID_HEADER] = extra.headerSessionId;
    const body: Record<string, string> = { message: extra.message ?? PROBE_MESSAGE };
    if (extra.sessionId !== undefined) body.session_id = extra.sessionId;
    return this.request({ method: 'POST', endpoint: this.talkEndpoint(), headers, body });
  }

  /** Shared talk exchange for one Accept value, made once per run. */
  talkOnce(accept: string): Promise<Probe> {
    return this.once(`talk:${accept}`, () => this.postTalk(accept));
  }

  /** A session id minted by the server on a JSON turn, or a random one when sessions are off. */
  sessionForNews(): Promise<string> {
    return this.once('news-session', async () => {
      const probe = await this.talkOnce(CONTENT_TYPE_JSON).catch(() => undefined);
      const minted = isRecord(probe?.json) ? probe.json.session_id : undefined;
      return typeof minted === 'string' ? minted : crypto.randomUUID();
    });
  }

  /** The talk endpoint from the catalog; skips the rule when talk is not advertised. */
  talkEndpoint(): string {
    if (!this.talk) this.skip('the catalog has no talk capability');
    return this.talk.endpoint;
  }

  /** The GET news endpoint; skips the rule when it is not advertised. */
  newsReadEndpoint(): string {
    if (!this.newsRead) this.skip('the catalog advertises no GET news capability');
    return this.newsRead.endpoint;
  }

  /** The POST news endpoint; skips the rule when it is not advertised. */
  newsWriteEndpoint(): string {
    if (!this.newsWrite) this.skip('the catalog advertises no POST news capability');
    return this.newsWrite.endpoint;
  }

  /** Marks the rule as broken. */
  fail(detail: string): never {
    throw new CheckFailure(detail);
  }

  /** Marks the rule as not exercisable here. */
  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  /** Fails with `detail` unless `condition` holds. */
  expect(condition: unknown, detail: string): asserts condition {
    if (!condition) this.fail(detail);
  }
}
