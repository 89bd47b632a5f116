import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class UnsupportedMediaTypeException extends RestapException {
  constructor(message = 'Send the body as application/json.', headers?: Record<string, string>) {
    super(415, ERROR_CODES.unsupportedMediaType, message, headers);
  }
}
