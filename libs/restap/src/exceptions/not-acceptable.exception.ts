import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class NotAcceptableException extends RestapException {
  constructor(message = 'None of the media types in Accept can be produced.', headers?: Record<string, string>) {
    super(406, ERROR_CODES.notAcceptable, message, headers);
  }
}
