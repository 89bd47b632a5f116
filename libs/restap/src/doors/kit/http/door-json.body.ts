import bodyParser from 'body-parser';
import type { Request, RequestHandler, Response } from 'express';
import { InvalidJsonException, InvalidRequestException, PayloadTooLargeException } from '../../../exceptions';
import { withinDepth } from '../../../text/json-depth';
import { declaredTooLarge } from './declared-length';
import { lingeringClose, type LingeringCloseLimits } from './lingering-close';

/** The limits a door's body is read with (`ResolvedRestapOptions['limits']`). */
export interface DoorBodyLimits extends LingeringCloseLimits {
  bodyBytes: number;
  maxJsonDepth: number;
}

/**
 * Reads a JSON body for a door whose protocol an SDK handler speaks (MCP, A2A), with the module's
 * limits: the body size (`limits.bodyBytes`) and nesting depth (`limits.maxJsonDepth`). A body
 * that breaks them is handed to `fail` as the matching RestapException; a client that left gets
 * nothing. A body whose Content-Length is over the limit is refused before it is read, the
 * connection then closing lingering (see lingering-close.ts) so the client reads the 413. The SDK
 * then judges what the JSON says.
 */
export class DoorJsonBody {
  private readonly parse: RequestHandler;
  private readonly limits: DoorBodyLimits;

  constructor(limits: DoorBodyLimits) {
    this.parse = bodyParser.json({ limit: limits.bodyBytes, strict: false, type: () => true });
    this.limits = limits;
  }

  /** Parses `req`'s body into `req.body`, then `next()`; or `fail(error)` with what was wrong. */
  read(req: Request, res: Response, next: () => void, fail: (error: unknown) => void): void {
    const { bodyBytes, maxJsonDepth } = this.limits;
    if (declaredTooLarge(req, bodyBytes)) {
      // body-parser would read and drop the whole declared upload before answering.
      lingeringClose(res, this.limits);
      return fail(new PayloadTooLargeException(`The request body is larger than the ${bodyBytes} bytes allowed.`));
    }
    this.parse(req, res, (error?: unknown) => {
      if (!error) {
        if (!withinDepth(req.body, maxJsonDepth)) {
          return fail(new InvalidRequestException(`The request body nests arrays/objects deeper than the ${maxJsonDepth} levels allowed.`));
        }
        return next();
      }
      const failure = error as { type?: string; limit?: number };
      if (failure.type === 'request.aborted') return undefined;
      if (failure.type === 'entity.too.large') return fail(new PayloadTooLargeException(`The request body is larger than the ${failure.limit} bytes allowed.`));
      if (failure.type === 'entity.parse.failed') return fail(new InvalidJsonException('The request body is not valid JSON.'));
      return fail(new InvalidRequestException('The request body could not be read.'));
    });
  }
}
