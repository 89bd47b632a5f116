import type { CallOptions } from '../interfaces/options.interface';

/** Options of {@link RestapClient.talk} and {@link RestapClient.talkStream}. */
export interface TalkOptions extends CallOptions {
  /**
   * `false` sends no session_id and leaves the client's session untouched (a one-off turn).
   * @default true: continue the client's current session
   */
  session?: boolean;
  /** Continue this session instead of the current one; becomes the current one. */
  sessionId?: string;
  /**
   * When a streamed reply breaks off (network loss, a proxy recycling the connection) and the
   * agent declares resumable streams (`x-restap-resume` on its talk capability), ask for the rest
   * with `Last-Event-ID`, backing off between attempts; the events go on as if nothing happened.
   * `false` turns it off.
   * @default { attempts: 5, backoffMs: 500 }
   */
  resume?: false | { attempts?: number; backoffMs?: number };
}
