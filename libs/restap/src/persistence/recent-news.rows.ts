import { integerOf } from '../text/integer-text';
import type { StoredNews } from './news.store';

/** A row of `recentSql` as node-postgres (or PGlite) hands it over. */
export interface RecentRow {
  id: string | number | bigint;
  ts: string | number | bigint;
  type: string;
  chars: number | string;
  cut: boolean;
  body: string;
}

/** A row handed out, with the row it was made from. */
interface Seen {
  raw: RecentRow;
  row: StoredNews;
}

/**
 * Turns `recentSql`'s rows (newest first) into the `StoredNews` a recent read hands out (oldest
 * first). Every /talk turn reads the same newest items of its feeds until one is posted, so a row
 * equal in every value to the one read last at its place is handed out as the same frozen object
 * as then, with nothing converted again; any other row is made anew and takes that place.
 */
export class RecentNewsRows {
  /** The rows made last, by their place in the statement's answer. At most the largest limit read. */
  private readonly seen: Array<Seen | undefined> = [];

  readonly of = (rows: RecentRow[]): StoredNews[] => {
    const seen = this.seen;
    const items = new Array<StoredNews>(rows.length);
    for (let k = rows.length - 1, i = 0; k >= 0; k--, i++) {
      const raw = rows[k];
      const last = seen[k];
      if (last !== undefined && sameRow(last.raw, raw)) {
        items[i] = last.row;
      } else {
        const row = storedNewsOf(raw);
        seen[k] = { raw, row };
        items[i] = row;
      }
    }
    return items;
  };
}

/** Whether two rows hold the same values (`chars` and `type` only matter to a cut row). */
function sameRow(a: RecentRow, b: RecentRow): boolean {
  return a.ts === b.ts && a.id === b.id && a.cut === b.cut && a.body === b.body && (!b.cut || (a.chars === b.chars && a.type === b.type));
}

/** A row as a frozen `StoredNews` (shared by the reads that find the same row again). */
function storedNewsOf(r: RecentRow): StoredNews {
  const id = String(r.id);
  const ts = integerOf(r.ts);
  return Object.freeze(r.cut ? { id, ts, body: r.body, cut: Object.freeze({ chars: Number(r.chars), type: r.type }) } : { id, ts, body: r.body });
}
