import { Inject, Injectable } from '@nestjs/common';
import bodyParser from 'body-parser';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import typeIs from 'type-is';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import { InvalidJsonException, InvalidRequestException, PayloadTooLargeException, UnsupportedMediaTypeException } from '../../../exceptions';
import type { ResolvedRestapOptions } from '../../../interfaces/restap-options.interface';
import { writeRestapError } from '../../kit/http/restap-error.writer';
import { lingeringClose, type LingeringCloseLimits } from '../../kit/http/lingering-close';
import { declaredTooLarge } from '../../kit/http/declared-length';
import type { RouteMatch } from './restap-paths';
import { withinDepth } from '../../../text/json-depth';

export { withinDepth };

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Reads POST bodies of /talk and /news before the host's own body parser can: our size limit, a
 * 415 for anything but JSON, and every failure in our JSON error shape, whatever the host's
 * parser settings. Run by the front door (see restap-front-door.ts), ahead of Nest's parsers.
 */
@Injectable()
export class RestapBodyParser {
  private readonly parse: RequestHandler;
  private readonly maxDepth: number;
  private readonly maxBytes: number;
  private readonly limits: LingeringCloseLimits;

  constructor(@Inject(RESTAP_OPTIONS) options: ResolvedRestapOptions) {
    this.parse = bodyParser.json({ limit: options.limits.bodyBytes, strict: false, type: () => true });
    this.maxDepth = options.limits.maxJsonDepth;
    this.maxBytes = options.limits.bodyBytes;
    this.limits = options.limits;
  }

  /** Called by the front door for requests on the module's paths; parses POST bodies of /talk and /news. */
  handle(req: Request, res: Response, next: NextFunction, match: RouteMatch): void {
    if (req.method !== 'POST' || match.subpath || match.route === 'catalog') return next();
    if (!typeIs.hasBody(req)) return next();
    if (!typeIs(req, JSON_TYPES)) {
      // Its body is never read: the connection closes after the answer (lingering, so the client reads it).
      lingeringClose(res, this.limits);
      return writeRestapError(res, new UnsupportedMediaTypeException(`Content-Type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted: send the body as application/json.`));
    }
    if (declaredTooLarge(req, this.maxBytes)) {
      // body-parser would read (and discard) the whole declared body before answering: answer now,
      // and close the connection rather than read an upload nobody will use.
      lingeringClose(res, this.limits);
      return writeRestapError(res, new PayloadTooLargeException(`The request body is larger than the ${this.maxBytes} bytes allowed.`));
    }
    this.parse(req, res, (error?: unknown) => {
      if (!error) {
        // Deep nesting would only fail later (JSON.stringify, PostgreSQL's json parser) as a 5xx.
        if (!withinDepth(req.body, this.maxDepth)) {
          return writeRestapError(res, new InvalidRequestException(`The request body nests arrays/objects deeper than the ${this.maxDepth} levels allowed.`));
        }
        return next();
      }
      const failure = error as { type?: string; limit?: number; charset?: string };
      switch (failure.type) {
        case 'entity.too.large':
          return writeRestapError(res, new PayloadTooLargeException(`The request body is larger than the ${failure.limit} bytes allowed.`));
        case 'entity.parse.failed':
          return writeRestapError(res, new InvalidJsonException('The request body is not valid JSON.'));
        case 'charset.unsupported':
        case 'encoding.unsupported':
          return writeRestapError(res, new UnsupportedMediaTypeException('Send the body as UTF-8 JSON without an unsupported Content-Encoding.'));
        case 'request.aborted':
          return undefined; // the client left; there is no one to answer
        default:
          return writeRestapError(res, new InvalidRequestException('The request body could not be read.'));
      }
    });
  }
}
