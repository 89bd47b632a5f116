import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { RestapSql, statement } from '../../persistence/restap-sql';

const CREATE = statement(`INSERT INTO restap_mcp_sessions (id_hash, init, owner_hash) VALUES ($1, $2::json, $3)`, 'mcp.session-create');
/** A live session's handshake; a session unseen for longer than the TTL is gone. */
const FIND = statement(`
  SELECT init, log_level, owner_hash, seen_at < now() - interval '60 seconds' AS stale FROM restap_mcp_sessions
  WHERE id_hash = $1 AND seen_at > now() - $2 * interval '1 millisecond'`, 'mcp.session-find');
const TOUCH = statement(`UPDATE restap_mcp_sessions SET seen_at = now() WHERE id_hash = $1`, 'mcp.session-touch');
const DELETE = statement(`DELETE FROM restap_mcp_sessions WHERE id_hash = $1`, 'mcp.session-delete');
const EXPIRE = statement(`DELETE FROM restap_mcp_sessions WHERE seen_at < now() - $1 * interval '1 millisecond'`, 'mcp.session-expire');
const SUBSCRIBE = statement(`
  UPDATE restap_mcp_sessions SET subscriptions = array_append(array_remove(subscriptions, $2::text), $2::text)
  WHERE id_hash = $1`, 'mcp.session-subscribe');
const UNSUBSCRIBE = statement(`UPDATE restap_mcp_sessions SET subscriptions = array_remove(subscriptions, $2::text) WHERE id_hash = $1`, 'mcp.session-unsubscribe');
const SET_LEVEL = statement(`UPDATE restap_mcp_sessions SET log_level = $2 WHERE id_hash = $1`, 'mcp.session-log-level');
/** Sessions whose GET stream is open count as used; those gone (ended elsewhere, expired) are not returned. */
const KEEP_ALIVE = statement(`
  UPDATE restap_mcp_sessions SET seen_at = now()
  WHERE id_hash = ANY($1::bytea[]) AND seen_at > now() - $2 * interval '1 millisecond'
  RETURNING id_hash`, 'mcp.session-keep-alive');
const SUBSCRIBED = statement(`SELECT id_hash FROM restap_mcp_sessions WHERE id_hash = ANY($1::bytea[]) AND $2::text = ANY(subscriptions)`, 'mcp.session-subscribed');

/**
 * SHA-256 of who a session belongs to under OAuth: the issuer, subject and client id of the token
 * that opened it (a renewed or step-up token of the same person through the same client is the same owner).
 */
export function mcpSessionOwnerHash(auth: { issuer: string; subject?: string; clientId: string }): Buffer {
  return createHash('sha256').update(`restap-mcp:owner:${JSON.stringify([auth.issuer, auth.subject ?? null, auth.clientId])}`, 'utf8').digest();
}

/** SHA-256 of an Mcp-Session-Id: what storage keeps of it. */
export function mcpSessionHash(sessionId: string): Buffer {
  return createHash('sha256').update(`restap-mcp:session:${sessionId}`, 'utf8').digest();
}

/**
 * The MCP door's sessions on the module's PostgreSQL (restap_mcp_sessions): the handshake a
 * replica replays to serve a session it did not open, and the resources each session subscribed
 * to. Keyed by the SHA-256 of the session id, which never reaches storage.
 */
@Injectable()
export class McpSessionStore {
  constructor(private readonly sql: RestapSql) {}

  /** `owner`: the OAuth owner's hash (mcpSessionOwnerHash), null without OAuth. */
  async create(hash: Buffer, init: unknown, ttlMs: number, owner: Buffer | null = null): Promise<void> {
    await this.sql.query(CREATE, [hash, JSON.stringify(init), owner]);
    // Expired sessions go as new ones come: the table holds at most a TTL's worth.
    await this.sql.query(EXPIRE, [ttlMs]);
  }

  /**
   * The session's handshake, if the session lives and `owns` accepts its owner; counts as use
   * (seen_at, at most once a minute). A session someone else owns is not touched.
   */
  async find(hash: Buffer, ttlMs: number, owns: (owner: Buffer | null) => boolean = () => true): Promise<{ init: unknown; logLevel: string | null } | undefined> {
    const [row] = await this.sql.query<{ init: unknown; log_level: string | null; owner_hash: Buffer | null; stale: boolean }>(FIND, [hash, ttlMs]);
    if (!row || !owns(row.owner_hash)) return undefined;
    if (row.stale) await this.sql.query(TOUCH, [hash]);
    return { init: row.init, logLevel: row.log_level };
  }

  async setLevel(hash: Buffer, level: string): Promise<void> {
    await this.sql.query(SET_LEVEL, [hash, level]);
  }

  async delete(hash: Buffer): Promise<void> {
    await this.sql.query(DELETE, [hash]);
  }

  async subscribe(hash: Buffer, uri: string): Promise<void> {
    await this.sql.query(SUBSCRIBE, [hash, uri]);
  }

  async unsubscribe(hash: Buffer, uri: string): Promise<void> {
    await this.sql.query(UNSUBSCRIBE, [hash, uri]);
  }

  /** Of `hashes` (sessions with an open GET stream), those that still live, marked as used. */
  async keepAlive(hashes: Buffer[], ttlMs: number): Promise<Buffer[]> {
    if (!hashes.length) return [];
    return (await this.sql.query<{ id_hash: Buffer }>(KEEP_ALIVE, [hashes, ttlMs])).map((row) => row.id_hash);
  }

  /** Of `hashes`, those subscribed to `uri`. */
  async subscribed(hashes: Buffer[], uri: string): Promise<Buffer[]> {
    if (!hashes.length) return [];
    return (await this.sql.query<{ id_hash: Buffer }>(SUBSCRIBED, [hashes, uri])).map((row) => row.id_hash);
  }
}
