import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class InvalidRequestException extends RestapException {
  constructor(message = 'The request is invalid.', headers?: Record<string, string>) {
    super(400, ERROR_CODES.invalidRequest, message, headers);
  }
}
