import bodyParser from 'body-parser';
import type { Request, RequestHandler, Response } from 'express';
import { InvalidJsonException, InvalidRequestException, PayloadTooLargeException } from '../exceptions';
import { withinDepth } from '../core/text/json-depth';

/**
 * Reads a JSON body for a door whose protocol an SDK handler speaks (MCP, A2A), with the module's
 * limits: the body size (`limits.bodyBytes`) and nesting depth (`limits.maxJsonDepth`). A body
 * that breaks them is handed to `fail` as the matching RestapException; a client that left gets
 * nothing. The SDK then judges what the JSON says.
 */
export class DoorJsonBody {
  private readonly parse: RequestHandler;
  private readonly maxDepth: number;

  constructor(limits: { bodyBytes: number; maxJsonDepth: number }) {
    this.parse = bodyParser.json({ limit: limits.bodyBytes, strict: false, type: () => true });
    this.maxDepth = limits.maxJsonDepth;
  }

  /** Parses `req`'s body into `req.body`, then `next()`; or `fail(error)` with what was wrong. */
  read(req: Request, res: Response, next: () => void, fail: (error: unknown) => void): void {
    this.parse(req, res, (error?: unknown) => {
      if (!error) {
        if (!withinDepth(req.body, this.maxDepth)) {
          return fail(new InvalidRequestException(`The request body nests arrays/objects deeper than the ${this.maxDepth} levels allowed.`));
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
