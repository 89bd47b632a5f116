/*
 * How a rule ends other than by passing: thrown through `ctx.fail` / `ctx.skip`, caught by the
 * runner. This file imports nothing, so the context and the runner share the two classes without
 * the context importing the types that name it (which was the client's one import circle).
 */

/** Thrown by `ctx.fail`: the rule is broken. */
export class CheckFailure extends Error {}

/** Thrown by `ctx.skip`: the rule could not be exercised (missing prerequisite). */
export class CheckSkipped extends Error {}
