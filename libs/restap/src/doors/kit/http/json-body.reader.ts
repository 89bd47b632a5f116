import bodyParser from 'body-parser';
import type { Request, RequestHandler, Response } from 'express';
import typeIs from 'type-is';
import { InvalidJsonException, InvalidRequestException, PayloadTooLargeException, UnsupportedMediaTypeException, type RestapException } from '../../../exceptions';
import { tooDeepMessage, withinDepth } from '../../../text/json-depth';
import { declaredTooLarge } from './declared-length';
import { lingeringClose, type LingeringCloseLimits } from './lingering-close';
import { writeDoorError } from './door-error.writer';

/**
 * How a door answers a body it refuses (default: writeDoorError's `{"error","message"}`). A door
 * that speaks a protocol may answer some refusals in its own terms (A2A's JSON-RPC -32700 for
 * malformed JSON, say) and hand the rest to writeDoorError.
 */
export type JsonBodyRefusal = (res: Response, error: RestapException) => void;

/** The limits a door's body is read with (`ResolvedRestapCoreOptions['limits']`). */
export interface JsonBodyLimits extends LingeringCloseLimits {
  bodyBytes: number;
  maxJsonDepth: number;
}

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Reads a JSON request body for every door, before the host's own body parser can: the module's
 * size limit (`limits.bodyBytes`) and nesting depth (`limits.maxJsonDepth`), 415 for anything but
 * JSON, and every failure in the module's JSON error shape, whatever the host's parser settings.
 * A body must say it is JSON: a browser page elsewhere can send `text/plain` or no type at all
 * without asking (no CORS preflight), so anything else is refused before it is read. A body whose
 * Content-Length is over the limit is refused before it is read too, the connection then closing
 * lingering (see lingering-close.ts) so the client reads the 413.
 */
export class JsonBodyReader {
  private readonly parse: RequestHandler;

  constructor(private readonly limits: JsonBodyLimits) {
    this.parse = bodyParser.json({ limit: limits.bodyBytes, strict: false, type: () => true });
  }

  /**
   * Parses `req`'s body into `req.body`, then `next()`; or answers with what was wrong.
   * `notJson` is the 415's message for a body of another type (the door says what it takes);
   * `refuse` answers a refusal (default: writeDoorError).
   */
  read(req: Request, res: Response, next: () => void, notJson: string, refuse: JsonBodyRefusal = writeDoorError): void {
    if (!typeIs.hasBody(req)) return next();
    if (!typeIs(req, JSON_TYPES)) {
      // Its body is never read: the connection closes after the answer (lingering, so the client reads it).
      lingeringClose(res, this.limits);
      return refuse(res, new UnsupportedMediaTypeException(`Content-Type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted: ${notJson}`));
    }
    const { bodyBytes, maxJsonDepth } = this.limits;
    if (declaredTooLarge(req, bodyBytes)) {
      // body-parser would read (and discard) the whole declared body before answering: answer now,
      // and close the connection rather than read an upload nobody will use.
      lingeringClose(res, this.limits);
      return refuse(res, new PayloadTooLargeException(`The request body is larger than the ${bodyBytes} bytes allowed.`));
    }
    this.parse(req, res, (error?: unknown) => {
      if (!error) {
        // Deep nesting would only fail later (JSON.stringify, PostgreSQL's json parser) as a 5xx.
        if (!withinDepth(req.body, maxJsonDepth)) {
          return refuse(res, new InvalidRequestException(tooDeepMessage(maxJsonDepth)));
        }
        return next();
      }
      const failure = error as { type?: string; limit?: number };
      switch (failure.type) {
        case 'entity.too.large':
          return refuse(res, new PayloadTooLargeException(`The request body is larger than the ${failure.limit} bytes allowed.`));
        case 'entity.parse.failed':
          return refuse(res, new InvalidJsonException('The request body is not valid JSON.'));
        case 'charset.unsupported':
        case 'encoding.unsupported':
          return refuse(res, new UnsupportedMediaTypeException('Send the body as UTF-8 JSON without an unsupported Content-Encoding.'));
        case 'request.aborted':
          return undefined; // the client left; there is no one to answer
        default:
          return refuse(res, new InvalidRequestException('The request body could not be read.'));
      }
    });
  }
}
