import { context, trace, type Span } from '@opentelemetry/api';
import { isStorageError } from './storage-errors';

/** Runs one batch: returns one result (or a promise of it) per item, in the items' order. */
export type BatchRunner<T, R> = (lane: string, items: T[]) => Promise<ReadonlyArray<R | PromiseLike<R>>>;

interface Pending<T, R> {
  item: T;
  /** The submitter's span, when one is recording and the item waited for a batch in flight: it gets a `restap.group_commit` event with the batch's size. */
  span?: Span;
  resolve: (result: R | PromiseLike<R>) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: work submitted concurrently on one lane runs as batches. While a batch of a lane
 * is in flight, new items of that lane wait; when it settles, the next batch takes everything that
 * waited (up to `max`). A lone item runs at once, so an idle agent adds no delay; under load one
 * statement (one round trip, one WAL flush, one lock) serves many requests.
 *
 * Every item waits for its own batch: a write is acknowledged only once the statement holding it
 * has committed, and a read that waited starts after the item was submitted, so it sees everything
 * committed before. If a batch of writes fails with anything but a storage outage, its items are
 * run again one at a time, so a bad item fails alone; a storage outage fails the whole batch at
 * once. Reads (`retryAlone: false`) fail as a batch: their items are alike, so would their errors be.
 *
 * @example
 * const writes = new GroupCommit<Row, void>((lane, rows) => insertAll(rows), 64);
 * await writes.submit('turns', row);
 */
export class GroupCommit<T, R> {
  /** Items waiting per lane; a lane is present while a batch of it is in flight. */
  private readonly lanes = new Map<string, Array<Pending<T, R>>>();

  constructor(
    private readonly run: BatchRunner<T, R>,
    private readonly max: number,
    private readonly options: { retryAlone: boolean } = { retryAlone: true },
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`GroupCommit: max must be a positive integer, got ${max}.`);
  }

  submit(lane: string, item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      const waiting = this.lanes.get(lane);
      if (waiting) {
        const active = trace.getSpan(context.active());
        waiting.push(active?.isRecording() ? { item, resolve, reject, span: active } : { item, resolve, reject });
        return;
      }
      this.lanes.set(lane, []);
      void this.drain(lane, [{ item, resolve, reject }]);
    });
  }

  /** Runs `batch`, then whatever waited on the lane meanwhile, until nothing waits. */
  private async drain(lane: string, batch: Array<Pending<T, R>>): Promise<void> {
    for (;;) {
      await this.settle(lane, batch);
      const waiting = this.lanes.get(lane) as Array<Pending<T, R>>;
      if (!waiting.length) {
        this.lanes.delete(lane);
        return;
      }
      batch = waiting.splice(0, this.max);
    }
  }

  /** Runs one batch and settles every item of it; never rejects. */
  private async settle(lane: string, batch: Array<Pending<T, R>>): Promise<void> {
    for (const p of batch) p.span?.addEvent('restap.group_commit', { 'restap.group_commit.batch_size': batch.length });
    let results: ReadonlyArray<R | PromiseLike<R>>;
    try {
      results = await this.run(
        lane,
        batch.map((p) => p.item),
      );
      if (!Array.isArray(results) || results.length !== batch.length) {
        throw new Error(`GroupCommit: a batch of ${batch.length} gave ${Array.isArray(results) ? results.length : 'no'} results.`);
      }
    } catch (error) {
      if (batch.length === 1 || !this.options.retryAlone || isStorageError(error)) batch.forEach((p) => p.reject(error));
      else for (const p of batch) await this.settle(lane, [p]);
      return;
    }
    batch.forEach((p, k) => p.resolve(results[k] as R | PromiseLike<R>));
  }
}

/**
 * A GroupCommit for identical reads (one lane per distinct read): the reads that waited while one
 * was in flight share the next statement, run once for the first of them, and each caller gets
 * `copy` of its result. They fail together, as a batch.
 *
 * @example
 * const pages = sharedReads((q: PageQuery) => readPage(q), (rows) => rows.slice(), 1024);
 * await pages.submit(JSON.stringify(query), query);
 */
export function sharedReads<T, R>(read: (item: T) => Promise<R>, copy: (result: R) => R, max: number): GroupCommit<T, R> {
  return new GroupCommit<T, R>((_, items) => read(items[0]).then((result) => items.map(() => copy(result))), max, { retryAlone: false });
}
