import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One MCP session of a 2025-era client (`Mcp-Session-Id`, the door's stateful mode), kept so any
 * replica serves it. The session id is a bearer secret: only its SHA-256 is stored.
 */
@Entity({ name: 'restap_mcp_sessions' })
@Index('restap_mcp_sessions_seen_idx', ['seenAt'])
export class RestapMcpSessionEntity {
  /** SHA-256 of the Mcp-Session-Id. */
  @PrimaryColumn({ name: 'id_hash', type: 'bytea' })
  idHash: Buffer;

  /** The client's `initialize` params (protocol version, capabilities, clientInfo): a replica that did not see the handshake replays it. */
  @Column({ type: 'json' })
  init: unknown;

  /** Resource URIs the session subscribed to (`resources/subscribe`). */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  subscriptions: string[];

  /** SHA-256 of the OAuth issuer, subject and client id of the token that opened it; null without OAuth. */
  @Column({ name: 'owner_hash', type: 'bytea', nullable: true })
  ownerHash: Buffer | null;

  /** The level the client set with `logging/setLevel` (log notifications below it are not sent). */
  @Column({ name: 'log_level', type: 'text', nullable: true })
  logLevel: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  /** Last request of the session (updated at most once a minute); past `mcp.sessions.ttlMs` the session is gone. */
  @Column({ name: 'seen_at', type: 'timestamptz', default: () => 'now()' })
  seenAt: Date;
}
