import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 400: GET /news `since` is not a non-negative integer number of milliseconds. */
export class InvalidSinceException extends RestapException {
  constructor(
    message = 'since must be a non-negative integer: the largest item timestamp (ms) already seen, or 0.',
    headers?: Record<string, string>,
  ) {
    super(400, ERROR_CODES.invalidSince, message, headers);
  }
}
