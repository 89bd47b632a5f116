import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 422: an `Idempotency-Key` already stored an item with a different body in the same feed. */
export class IdempotencyKeyReusedException extends RestapException {
  constructor(
    message = 'This Idempotency-Key was already used with a different body: send a new key for a new item, or resend the original body to get its acknowledgement.',
    headers?: Record<string, string>,
  ) {
    super(422, ERROR_CODES.idempotencyKeyReused, message, headers);
  }
}
