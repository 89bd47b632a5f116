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
 * A table of another part of the module (a door) whose rows can be written in the statement that
 * stores a turn: one round trip and one commit for both, so the row is durable exactly when the
 * turn is. The write is a data-modifying CTE reading the batch's rows from `rows`, a FROM item
 * (`unnest(...) AS w(<columns>)`) with one array parameter per column.
 *
 * @example
 * const TASKS: TurnSideTable = {
 *   name: 'a2a.tasks',
 *   columns: [['id', 'text[]'], ['state', 'text[]']],
 *   write: (rows) => `INSERT INTO my_tasks (id, state) SELECT id, state FROM ${rows} ORDER BY id`,
 * };
 */
export interface TurnSideTable {
  /** Names the write, uniquely among side tables: the statement's purpose in the log, and the key its statement is kept under. */
  readonly name: string;
  /** Each column's name and the array type of its parameter, in the order of a row's values. */
  readonly columns: ReadonlyArray<readonly [name: string, arrayType: string]>;
  /** The write, given the FROM item yielding the rows. */
  readonly write: (rows: string) => string;
  /**
   * The batch's rows as the statement's parameters, one per column, in order. Default: an array of
   * each column's values (node-postgres writes it as an array literal); a table may give them in
   * binary form instead (see binaryArray).
   */
  readonly params?: (rows: ReadonlyArray<readonly unknown[]>) => unknown[];
}

/** One row of a {@link TurnSideTable}, its values in the table's column order. */
export interface TurnSideRow {
  readonly table: TurnSideTable;
  readonly values: readonly unknown[];
}

/** A turn stored while it runs (see SessionStore.openTurn): the rows to end it on. */
export interface OpenedTurn {
  /** The stored rows' ids, in the order of the turns given to `openTurn`. */
  readonly rowIds: readonly string[];
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
  /**
   * `appendTurns`, with `side` written in the same statement (same transaction): resolves once
   * both are committed, rejects with neither stored. Optional: without it, a door's row is written
   * by the door itself, after the turn.
   */
  appendTurnsWith?(keyHash: Buffer, turns: readonly NewTalkTurn[], side: TurnSideRow): Promise<void>;
  /**
   * Stores a running turn as it stands: the user's message and a placeholder for the reply, both `open`
   * (left out of `loadHistory`) and tagged with `runner`, the instance running the turn, so that
   * another instance can mark it interrupted should this one die (see `interruptOrphans`).
   * Optional: without it, a turn is stored once, when it ends (`appendTurns`), and a turn whose
   * instance dies leaves nothing.
   */
  openTurn?(keyHash: Buffer, turns: readonly NewTalkTurn[], runner: string): Promise<OpenedTurn>;
  /**
   * Ends an opened turn: `turns` (same order as opened) give each row its final status and, for
   * the reply, its content, time and tool steps; `side` is written in the same statement, as in
   * `appendTurnsWith`. Resolves once committed.
   */
  closeTurn?(opened: OpenedTurn, turns: readonly NewTalkTurn[], side?: TurnSideRow): Promise<void>;
  /**
   * Marks the open turns of every dead instance — not `self`, no heartbeat within `orphanAfterMs`
   * (restap_replicas) — their messages stored, their replies `interrupted`. Returns how many turns
   * it marked. Safe to run from several instances at once (each turn is marked once).
   */
  interruptOrphans?(self: string, orphanAfterMs: number): Promise<number>;
}
