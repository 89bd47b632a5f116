/** An item the agent publishes itself (`NewsService.publish`): the POST /news fields, no server fields. */
export interface NewsDraft {
  /** Non-empty, e.g. `job.completed`. */
  type: string;
  from?: string;
  in_reply_to?: string;
  message?: string;
  data?: unknown;
  /** Any other field is stored and served as given (JSON values only). */
  [extra: string]: unknown;
}

/** Options of `NewsService.publish()`. */
export interface NewsPublishOptions {
  /** Tag the item to this session; required in session scope, where there is no shared feed. */
  sessionId?: string;
}
