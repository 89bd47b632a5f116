/** A turn waiting in {@link TurnDeadlines}; `remove` takes it out. */
export interface TurnDeadline<T> {
  readonly item: T;
  /** Date.now() at which it is due. */
  readonly at: number;
  prev?: TurnDeadline<T>;
  next?: TurnDeadline<T>;
  /** False once removed or handed to `due`. */
  waiting: boolean;
}

/**
 * Hands each item still waiting `afterMs` after it was added to `due`, with one timer for all of
 * them instead of one per item. Every item waits the same time, so they are due in the order they
 * came: a list in that order, and a timer armed for its head. An item removed before it is due
 * leaves the timer as it is; when the timer fires it hands over the items due and is armed again
 * for the next one, if any. Under steady load that is one timer every `afterMs`, not one per turn.
 * The timer is unref'd: waiting items never keep the process alive.
 *
 * @example
 * const deadlines = new TurnDeadlines<Turn>(100, (turn) => storeOpen(turn));
 * const deadline = deadlines.add(turn); // … the turn ends
 * deadlines.remove(deadline);
 */
export class TurnDeadlines<T> {
  private head?: TurnDeadline<T>;
  private tail?: TurnDeadline<T>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly afterMs: number,
    private readonly due: (item: T) => void,
  ) {}

  add(item: T): TurnDeadline<T> {
    const deadline: TurnDeadline<T> = { item, at: Date.now() + this.afterMs, prev: this.tail, next: undefined, waiting: true };
    if (this.tail) this.tail.next = deadline;
    else this.head = deadline;
    this.tail = deadline;
    if (!this.timer) this.arm(this.afterMs);
    return deadline;
  }

  remove(deadline: TurnDeadline<T>): void {
    if (!deadline.waiting) return;
    deadline.waiting = false;
    const { prev, next } = deadline;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    deadline.prev = deadline.next = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), ms);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    try {
      for (let head = this.head; head && head.at <= now; head = this.head) {
        this.remove(head);
        this.due(head.item);
      }
    } finally {
      if (this.head && !this.timer) this.arm(Math.max(0, this.head.at - now));
    }
  }
}
