import { TooManyRequestsException } from '../../exceptions';

/**
 * Counts open SSE streams (or held news polls), in total and per client, and refuses one past either cap with
 * 429 too_many_requests (`Retry-After: 1`). Per instance: each replica counts its own.
 *
 * @example
 * const release = slots.acquire(req.ip ?? 'unknown'); // throws 429 when full
 * res.on('close', release);
 */
export class StreamSlots {
  private total = 0;
  private readonly perClient = new Map<string, number>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerClient: number,
    /** What is counted, for the 429 message. */
    private readonly what = 'streams',
  ) {}

  /** Streams open now. */
  get open(): number {
    return this.total;
  }

  /** Takes a slot for `client`; the returned function gives it back (calling it twice is harmless). */
  acquire(client: string): () => void {
    const mine = this.perClient.get(client) ?? 0;
    if (this.total >= this.maxTotal) {
      throw new TooManyRequestsException(`The agent has ${this.maxTotal} ${this.what} open, its limit: retry shortly.`, { 'Retry-After': '1' });
    }
    if (mine >= this.maxPerClient) {
      throw new TooManyRequestsException(`You have ${this.maxPerClient} ${this.what} open, the limit per client: close one or retry shortly.`, { 'Retry-After': '1' });
    }
    this.total++;
    this.perClient.set(client, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
  }
}
