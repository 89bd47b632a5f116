import type { Request, Response } from 'express';

/**
 * One step of a door's request pipeline: it calls `next()` to hand the request on, or answers it
 * (and does not call `next`). `context` is what the door knows of the request (the RESTAP door's
 * route match; nothing for a single-endpoint door).
 */
export type DoorStep<C = void> = (req: Request, res: Response, next: () => void, context: C) => void;

/**
 * A door's checks, in order, as one list instead of nested callbacks: origin → CORS → drain →
 * rate limit → body → host guards, each door picking the steps it needs (see DoorKit). The steps
 * run by index with one closure per request, so a longer pipeline costs no more allocation.
 */
export class DoorPipeline<C = void> {
  private readonly steps: readonly DoorStep<C>[];

  /** `undefined` entries are steps that are off (e.g. `kit.bearerAuth()` without OAuth): left out, they cost nothing. */
  constructor(steps: readonly (DoorStep<C> | undefined)[]) {
    this.steps = steps.filter((step): step is DoorStep<C> => step !== undefined);
  }

  /** Runs the steps on the request, then `done()` if every step handed it on. */
  run(req: Request, res: Response, context: C, done: () => void): void {
    const steps = this.steps;
    let index = 0;
    const next = (): void => {
      const step = steps[index++];
      if (step === undefined) return done();
      step(req, res, next, context);
    };
    next();
  }
}

/** The request's path without one trailing slash (`/mcp/` → `/mcp`), as a door compares it to its own. */
export function doorPathOf(req: Request): string {
  const path = req.path;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
