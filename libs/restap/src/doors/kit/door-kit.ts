import { Inject, Injectable, Optional, type Type } from '@nestjs/common';
import type { HttpServer } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { ShuttingDownException } from '../../exceptions';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { RestapDrain } from '../../core/lifecycle/restap-drain.service';
import { RestapRateLimit } from './rate-limit/restap-rate-limit';
import { DoorGuards, type DoorEndpoint } from './guards/door-guards';
import { DoorStreams } from './http/door-streams';
import { JsonBodyReader, type JsonBodyRefusal } from './http/json-body.reader';
import { lingeringClose } from './http/lingering-close';
import { writeDoorError } from './http/door-error.writer';
import type { DoorStep } from './door-pipeline';
import { OAUTH_RESOURCE, type OAuthGate } from './auth/oauth-gate';

/**
 * The steps every door composes into its DoorPipeline, so each check is written once: the
 * shutdown drain (503), the rate limit (429), the JSON body (415/413/400), the host's guards
 * (401/403) and the open-stream caps (429). Each answers a refusal in the module's JSON error shape.
 */
/**
 * A door's checks ahead of the host's middleware (see {@link DoorKit.admitBeforeHost}): true when
 * the request is the door's (it answers it, or calls `next`), false when it is not (and `next` is
 * not called).
 */
export type DoorAdmission = (req: Request, res: Response, next: NextFunction) => boolean;

@Injectable()
export class DoorKit {
  private readonly json: JsonBodyReader;
  /** The doors' admissions, in the order they were added; one Express middleware runs them. */
  private admissions?: DoorAdmission[];

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly drain: RestapDrain,
    private readonly rateLimiter: RestapRateLimit,
    private readonly guards: DoorGuards,
    private readonly streams: DoorStreams,
    @Optional() @Inject(OAUTH_RESOURCE) private readonly oauth: OAuthGate | null = null,
  ) {
    this.json = new JsonBodyReader(options.limits);
  }

  /**
   * Adds a door's admission to the one Express middleware every door shares ahead of the host's
   * middleware (registered by the first door to add one, while the application is created): the
   * request is offered to each door in the order they were added, until one takes it.
   */
  admitBeforeHost(adapter: HttpServer | undefined, admission: DoorAdmission): void {
    if (this.admissions) {
      this.admissions.push(admission);
      return;
    }
    const admissions: DoorAdmission[] = (this.admissions = [admission]);
    adapter?.use((req: Request, res: Response, next: NextFunction) => {
      for (let k = 0; k < admissions.length; k++) if (admissions[k](req, res, next)) return;
      next();
    });
  }

  /** 503 shutting_down (with `Retry-After`) once shutdown began, unless `spares(context)` (discovery keeps answering). */
  refuseWhileDraining<C>(spares?: (context: C) => boolean): DoorStep<C> {
    return (req, res, next, context) => {
      if (!this.drain.isDraining() || spares?.(context)) return next();
      lingeringClose(res, this.options.limits); // its body, if any, is never read
      writeDoorError(res, new ShuttingDownException());
    };
  }

  /**
   * A hit on the rate limit's counter `bucket` (a name, or chosen per request; none: not counted),
   * counted before the body is read: an over-quota client costs no upload.
   */
  rateLimit<C>(bucket: string | ((req: Request, context: C) => string | undefined)): DoorStep<C> {
    if (typeof bucket === 'string') return (req, res, next) => this.rateLimiter.limit(req, res, bucket, next);
    return (req, res, next, context) => {
      const name = bucket(req, context);
      if (name === undefined) return next();
      this.rateLimiter.limit(req, res, name, next);
    };
  }

  /**
   * Reads a JSON body with the module's limits when `reads(req, context)` (default: any request
   * with a body). `notJson` ends the 415's message: what the door takes instead. `refuse` answers
   * a refusal in the door's protocol where it has its own (A2A's -32700 and -32005, MCP's -32700);
   * default: the module's JSON error shape.
   */
  jsonBody<C>(notJson: string, reads?: (req: Request, context: C) => boolean, refuse?: JsonBodyRefusal): DoorStep<C> {
    return (req, res, next, context) => {
      if (reads && !reads(req, context)) return next();
      this.json.read(req, res, next, notJson, refuse);
    };
  }

  /**
   * OAuth 2.1 bearer tokens (`auth.oauth`): the request's `Authorization: Bearer` JWT is verified
   * (issuer, audience = the agent's resource URL, expiry, signature by the issuer's keys) and its
   * caller tied to the request for the guards, the invoker and the scope rule; none or a bad one is
   * 401 with `WWW-Authenticate: Bearer resource_metadata="…"`. Undefined when OAuth is off: the
   * pipeline leaves it out, so it costs nothing. `spares(req, context)`: requests that stay public.
   */
  bearerAuth<C>(spares?: (req: Request, context: C) => boolean): DoorStep<C> | undefined {
    const oauth = this.oauth;
    if (!oauth) return undefined;
    return (req, res, next, context) => {
      if (req.method === 'OPTIONS' || spares?.(req, context)) return next();
      const pending = oauth.authenticate(req);
      if (pending === undefined) {
        try {
          return next();
        } catch (error) {
          return writeDoorError(res, error);
        }
      }
      pending.then(
        () => {
          try {
            next();
          } catch (error) {
            writeDoorError(res, error);
          }
        },
        (error: unknown) => {
          lingeringClose(res, this.options.limits); // its body, if any, is never read
          writeDoorError(res, error);
        },
      );
    };
  }

  /** The host's global guards and the `guards` option, run on an execution context whose class is `endpoint`. */
  hostGuards<C>(endpoint: Type<DoorEndpoint>): DoorStep<C> {
    return (req, res, next) => {
      this.guards.check(req, res, endpoint).then(
        () => {
          try {
            next();
          } catch (error) {
            writeDoorError(res, error);
          }
        },
        (error: unknown) => writeDoorError(res, error),
      );
    };
  }

  /** A slot of the open-stream caps held until the response closes, when `opens(req)` says its answer is a stream. */
  streamSlot<C>(opens: (req: Request) => boolean): DoorStep<C> {
    return (req, res, next) => {
      if (opens(req)) {
        try {
          this.streams.hold(req, res);
        } catch (error) {
          return writeDoorError(res, error);
        }
      }
      next();
    };
  }
}
