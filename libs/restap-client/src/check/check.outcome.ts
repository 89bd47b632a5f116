/*
 * How a rule ends other than by passing: thrown through `ctx.fail` / `ctx.skip`, caught by the
 * runner. This file imports nothing, so the context and the runner share the two classes without
 * the context importing the types that name it (which was the client's one import circle).
 */

/** Thrown by `ctx.fail`: the rule is broken. */
export class CheckFailure extends Error {}

/** Thrown by `ctx.skip`: the rule could not be exercised (missing prerequisite). */
export class CheckSkipped extends Error {}

/** Detail of a rule whose probe met 401: the agent wants credentials the run was not given. */
export const AUTH_REQUIRED = 'authentication required (HTTP 401): pass the credentials, e.g. --header \'Authorization: Bearer …\'';

/** Thrown when a probe is answered 401: the rule was not exercised, and a 401 never counts as a pass. */
export class AuthenticationRequired extends CheckSkipped {
  constructor() {
    super(AUTH_REQUIRED);
  }
}
