import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class InvalidSessionIdException extends RestapException {
  constructor(message = 'session_id must match ^[A-Za-z0-9._-]{16,128}$.', headers?: Record<string, string>) {
    super(400, ERROR_CODES.invalidSessionId, message, headers);
  }
}
