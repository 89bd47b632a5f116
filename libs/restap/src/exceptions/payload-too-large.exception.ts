import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class PayloadTooLargeException extends RestapException {
  constructor(message = 'The request body is too large.', headers?: Record<string, string>) {
    super(413, ERROR_CODES.payloadTooLarge, message, headers);
  }
}
