import type { Type } from '@nestjs/common';

/** Options of `@Capability()`. Unknown fields (e.g. `pricing`) are copied into the catalog entry. */
export interface CapabilityOptions {
  /** Unique dotted identifier, e.g. `text.echo`. */
  id: string;
  /** Human-readable name. */
  title: string;
  /** What the capability does. */
  description?: string;
  /** DTO class of the response body; defaults to the method's declared return class. */
  output?: Type<unknown>;
  /** DTO class of the request body; defaults to the `@Body()` parameter's class. */
  input?: Type<unknown>;
  /** Publish a `job.completed` news item after the handler succeeds. @default false */
  news?: boolean;
  /** Offer the capability to the model behind /talk (and other doors) as a tool. @default true */
  tool?: boolean;
  [extra: string]: unknown;
}
