import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 429: the client went past a rate limit or an open-stream cap; `Retry-After` says when to retry. */
export class TooManyRequestsException extends RestapException {
  constructor(message = 'Too many requests: retry after the number of seconds in Retry-After.', headers?: Record<string, string>) {
    super(429, ERROR_CODES.tooManyRequests, message, headers);
  }
}
