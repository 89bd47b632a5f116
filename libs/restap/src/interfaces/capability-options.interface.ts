import type { Type } from '@nestjs/common';
import type { RestapCaller } from './caller.interface';

/**
 * What a capability answers, for its `output_schema`: a DTO class (`TodoDto`), a primitive
 * constructor (`String`, `Number`, `Boolean`, `Date`), or a one-element array of either for a
 * JSON array of them (`[TodoDto]`, `[String]`).
 */
/**
 * Decides whether one call needs a person's approval: `false`/`undefined` no, `true` yes (default
 * question), a string yes with that question.
 */
export type CapabilityApprovalRule = (args: Readonly<Record<string, unknown>>, caller: RestapCaller) => boolean | string | undefined;

export type CapabilityOutput = Type<unknown> | readonly [Type<unknown>];

/**
 * Options of `@Capability()`. The type is closed: a misspelt key (`ouput`) does not compile.
 * Fields the catalog entry should carry beyond the derived ones go under `extra`.
 */
export interface CapabilityOptions {
  /** Unique dotted identifier, e.g. `text.echo`. */
  id: string;
  /** Human-readable name. */
  title: string;
  /** What the capability does. */
  description?: string;
  /**
   * Type of the response body: `TodoDto`, `[TodoDto]` for an array, or a primitive (`String`,
   * `[Number]`). Unset: the `@ApiOkResponse`/`@ApiResponse` type of a 2xx status when
   * @nestjs/swagger decorates the route (`type: [TodoDto]` or `isArray: true` give an array), else
   * the method's declared return class (a `Promise<…>` or array return type says nothing usable).
   */
  output?: CapabilityOutput;
  /** DTO class of the request body; defaults to the `@Body()` parameter's class. */
  input?: Type<unknown>;
  /** Publish a `job.completed` news item after the handler succeeds. @default false */
  news?: boolean;
  /** Offer the capability to the model behind /talk (and other doors) as a tool. @default true */
  tool?: boolean;
  /**
   * A person must approve each call made through a door (a /talk tool call, an MCP `tools/call`, an
   * A2A capability call) before it runs: `true` for every call, or a function of the call's
   * arguments and caller answering `false` (no approval needed), `true` (needed, default question)
   * or a string (needed: the question shown to the person). Direct HTTP calls to the route are not
   * gated: the host's own guards govern them. See docs/approvals.md.
   * @default false
   *
   * @example
   * @Capability({ id: 'stock.restock', title: 'Restock', approval: (args) => (args.quantity as number) > 100 && `Restock ${args.quantity} units?` })
   */
  approval?: boolean | CapabilityApprovalRule;
  /**
   * OAuth scopes a caller's token must carry to call the capability, when `auth.oauth` is on (off:
   * ignored). Without them the capability is left out of MCP `tools/list`, the A2A skills offered
   * and the model's tools, and a call gets 403 `insufficient_scope`. Added to
   * `auth.oauth.requiredScopes[id]`. @default []
   */
  scopes?: readonly string[];
  /**
   * A long-running capability: a door may run a call as a task that outlives the request, so a slow
   * capability never holds a request open. An MCP client that asks for a task (2025-11-25 tasks:
   * `tools/call` with `task`) gets the task at once and follows it with `tasks/get`, `tasks/result`
   * and `tasks/cancel`; an A2A `SendMessage` with `returnImmediately` gets the task `working` and
   * polls `GetTask`. Either way the task is stored in PostgreSQL (any replica answers for it), a
   * cancel aborts the call (see `capabilitySignal`), it may run `capabilityTasks.timeoutMs` instead of
   * `capabilityTimeoutMs`, and a task whose instance died is failed by the orphan sweep. Callers
   * that ask for no task still get a plain call. See docs/tools.md. @default false
   */
  task?: boolean;
  /**
   * Fields copied as they are into the catalog entry, e.g. `{ pricing: { per_call_usd: 0.01 } }`.
   * They cannot replace `id`, `title`, `method` or `endpoint` (startup fails if they try).
   */
  extra?: Readonly<Record<string, unknown>>;
}

/**
 * Every key of {@link CapabilityOptions}. Typed against the interface, so a key added there must be
 * added here too; the explorer refuses other keys at startup (JavaScript callers, casts).
 */
export const CAPABILITY_OPTION_KEYS: Readonly<Record<keyof CapabilityOptions, true>> = Object.freeze({
  id: true, title: true, description: true, output: true, input: true, news: true, tool: true, approval: true, scopes: true, task: true, extra: true,
});
