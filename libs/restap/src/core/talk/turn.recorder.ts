import type { TalkOutcome } from './talk.run';
import type { NewTalkTurn, OpenedTurn, SessionStore } from '../../persistence/session.store';
import type { RestapReplicas } from '../lifecycle/restap-replicas.service';
import { TurnDeadlines } from './turn-deadlines';
import type { TurnState } from './turn.handle';
import type { TurnEnding } from './turn.types';

/**
 * How long a turn runs before it is stored as it stands (user message kept, reply `open`), ms. A
 * turn that ends sooner is written once, when it ends, in one statement as before: the write that
 * keeps a turn across a crash of its instance costs only turns that last (a model's replies take
 * seconds), not the quick ones. As for the A2A door's unseen tasks (UNSEEN_TASK_MS).
 */
export const OPEN_TURN_AFTER_MS = 100;

/** Where the recorder reports a write it could not make (TalkService.logFailure). */
export interface TurnFailureLog {
  logFailure(what: string, error: unknown, turn?: { sessionId?: string }): void;
}

/**
 * Stores a turn as a user/assistant pair of rows in its session, with the door's side row when it
 * gives one; a turn that lasts is stored as it stands first (storeOpen), so that its message
 * survives a crash of this instance. Only the hash of the session id reaches storage.
 */
export class TurnRecorder {
  /** The turns to store as they stand if still running after OPEN_TURN_AFTER_MS (see storeOpen): one timer for them all. */
  private readonly openLater = new TurnDeadlines<TurnState>(OPEN_TURN_AFTER_MS, (turn) => this.storeOpen(turn));

  constructor(
    private readonly store: SessionStore,
    private readonly replicas: RestapReplicas | undefined,
    private readonly log: TurnFailureLog,
  ) {}

  /** Has the turn stored as it stands should it still run after OPEN_TURN_AFTER_MS (a session, a store that keeps open rows, replicas). */
  storeIfLasting(turn: TurnState): void {
    if (turn.keyHash && this.store.openTurn && this.store.closeTurn && this.replicas) {
      turn.openDeadline = this.openLater.add(turn);
    }
  }

  /**
   * Appends the user message and the reply (with how it ended) to the session, when there is one,
   * and the door's side row with them when it gives one: resolves `true` when that row was stored with the turn.
   */
  record(turn: TurnState, outcome: Pick<TalkOutcome, 'status' | 'text'>): Promise<true | void> {
    const { keyHash } = turn;
    if (!keyHash) return NOTHING_STORED;
    if (turn.openDeadline) this.openLater.remove(turn.openDeadline);
    turn.ending = true;
    // A turn stored while it ran (one that lasted) waits for that write; a quick one is written at once.
    return turn.opening ? turn.opening.then(() => this.storeTurn(turn, keyHash, outcome)) : this.storeTurn(turn, keyHash, outcome);
  }

  /** record(), once no open write is in flight: closes the rows stored while the turn ran, or appends the turn. */
  private storeTurn(turn: TurnState, keyHash: Buffer, outcome: Pick<TalkOutcome, 'status' | 'text'>): Promise<true | void> {
    const turns = this.turnRows(turn, outcome);
    const { store } = this;
    if (turn.opened && store.closeTurn) return this.close(turn, turn.opened, turns, outcome);
    if (turn.side && store.appendTurnsWith) {
      const asked = turn.approvals?.asked.length ? turn.approvals.asked : undefined;
      const ending: TurnEnding = { status: outcome.status, text: outcome.text };
      if (asked && outcome.status === 'complete') ending.approvals = asked;
      const side = turn.side(ending);
      if (side) return store.appendTurnsWith(keyHash, turns, side).then(sideStored);
    }
    return store.appendTurns(keyHash, turns);
  }

  /** Ends the rows stored while the turn ran (see storeOpen) on `turns`, with the door's side row: `true` when it had one. */
  private async close(turn: TurnState, opened: OpenedTurn, turns: NewTalkTurn[], outcome: Pick<TalkOutcome, 'status' | 'text'>): Promise<true | void> {
    const store = this.store as Required<Pick<SessionStore, 'closeTurn'>>;
    const side = turn.side?.({ status: outcome.status, text: outcome.text });
    try {
      await store.closeTurn(opened, turns, side);
    } catch (error) {
      // The client hears of the failure; the turn is stored as failed once storage is back.
      const failed = this.turnRows(turn, { status: outcome.status === 'complete' ? 'error' : outcome.status, text: outcome.text });
      this.replicas?.retryLater(() => store.closeTurn(opened, failed));
      throw error;
    }
    if (side !== undefined) return true;
  }

  /**
   * Stores a turn that is still running as it stands: the user's message and a placeholder for the
   * reply, both `open` (out of history until the turn ends) and tagged with this instance, so that
   * should it die before the turn ends (kill -9), another marks the turn interrupted and the
   * message is kept. Not awaited by the turn; `record` waits for it. When it fails, the turn is
   * stored once, as it ends, as before.
   */
  private storeOpen(turn: TurnState): void {
    const { store, replicas } = this;
    if (turn.ending || !turn.keyHash || !store.openTurn || !replicas) return;
    turn.opening = store.openTurn(turn.keyHash, this.turnRows(turn, { status: 'error', text: '' }), replicas.id).then(
      (opened) => {
        turn.opened = opened;
      },
      (error: unknown) => this.log.logFailure('Could not store a running /talk turn (it is stored when it ends)', error, turn),
    );
  }

  /** The turn's rows: the user's message (none in a turn that continues without one), and the reply as `outcome` has it. */
  private turnRows(turn: TurnState, outcome: Pick<TalkOutcome, 'status' | 'text'>): NewTalkTurn[] {
    const reply: NewTalkTurn = { role: 'assistant', content: outcome.text, messageId: turn.messageId, status: outcome.status, createdAt: new Date(), toolSteps: turn.toolSteps.snapshot() };
    if (turn.message === undefined) return [reply];
    return [{ role: 'user', content: turn.message, messageId: turn.userMessageId, status: 'complete', createdAt: turn.receivedAt }, reply];
  }

  async recordQuietly(turn: TurnState, outcome: Pick<TalkOutcome, 'status' | 'text'>): Promise<boolean> {
    try {
      return (await this.record(turn, outcome)) === true;
    } catch (error) {
      this.log.logFailure(`Could not store an ${outcome.status} /talk turn`, error, turn);
      return false;
    }
  }
}

/** record() of a turn without a session: nothing to store. */
const NOTHING_STORED: Promise<void> = Promise.resolve();

/** What record() resolves to once a turn's write carried the door's side row. */
const sideStored = (): true => true;
