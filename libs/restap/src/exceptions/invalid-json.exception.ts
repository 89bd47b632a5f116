import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class InvalidJsonException extends RestapException {
  constructor(message = 'The request body is not valid JSON.', headers?: Record<string, string>) {
    super(400, ERROR_CODES.invalidJson, message, headers);
  }
}
