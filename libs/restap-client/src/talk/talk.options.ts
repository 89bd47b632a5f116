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
}
