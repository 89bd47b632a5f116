import { statement } from './restap-sql';

/** This instance is alive: its heartbeat, on the database's clock (the one the sweeps compare with). */
export const BEAT = statement(
  `INSERT INTO restap_replicas AS r (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET last_seen = now()`,
  'replicas.heartbeat',
);

/** True when the instance `$1` wrote a heartbeat within the last `$2` ms. */
export const IS_LIVE = statement(
  `SELECT EXISTS (SELECT 1 FROM restap_replicas WHERE id = $1 AND last_seen > now() - $2::int * interval '1 millisecond') AS live`,
  'replicas.is-live',
);

/**
 * Forgets instances silent for longer than `$1` ms, once their work was swept: an instance without
 * a row counts as dead anyway, so this only keeps the table small.
 */
export const PRUNE = statement(
  `DELETE FROM restap_replicas WHERE last_seen < now() - $1::int * interval '1 millisecond'`,
  'replicas.prune',
);

/** This instance shut down, its work ended: its row goes. */
export const FORGET = statement(`DELETE FROM restap_replicas WHERE id = $1`, 'replicas.forget');

/**
 * The SQL condition "the instance named by `column` is dead": not this instance (`$self`, which
 * never sweeps its own work) and without a heartbeat within the orphan window (`$window` ms,
 * measured on the database's clock, as the heartbeats are written). No heartbeat row at all
 * (an instance that shut down, or whose row was cleaned up) counts as dead too.
 */
export function deadRunner(column: string, self: string, window: string): string {
  return `${column} <> ${self}::text AND NOT EXISTS (
    SELECT 1 FROM restap_replicas r WHERE r.id = ${column} AND r.last_seen > now() - ${window}::int * interval '1 millisecond')`;
}
