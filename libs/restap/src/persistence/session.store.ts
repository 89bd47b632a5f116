import type { TalkRole, TalkToolStep, TalkTurn, TalkTurnStatus } from '../interfaces/talk.interface';

/** Injection token of the {@link SessionStore} used by /talk. */
export const RESTAP_SESSION_STORE = Symbol('RESTAP_SESSION_STORE');

/** A turn to append to a conversation. */
export interface NewTalkTurn {
  role: TalkRole;
  content: string;
  messageId: string;
  status: TalkTurnStatus;
  createdAt: Date;
  /** The tool calls made while producing an assistant reply (none: undefined). */
  toolSteps?: readonly TalkToolStep[];
}

/**
 * Where /talk keeps conversations. Sessions are addressed only by the SHA-256 of their
 * session_id (`hashSessionId`): the raw id never reaches storage.
 *
 * @example
 * const history = await store.loadHistory(hashSessionId(id), 50);
 */
export interface SessionStore {
  /**
   * The session's newest `limit` turns, oldest first; empty for an unknown session. One round trip
   * (concurrent calls may share it). A content longer than `maxChars` comes back as its first
   * `maxChars` characters, with `fullLength` set (default: no cap).
   */
  loadHistory(keyHash: Buffer, limit: number, maxChars?: number): Promise<TalkTurn[]>;
  /** Creates the session if new, marks it active and appends `turns` in order; resolves once committed. One round trip (concurrent calls may share it). */
  appendTurns(keyHash: Buffer, turns: readonly NewTalkTurn[]): Promise<void>;
}
