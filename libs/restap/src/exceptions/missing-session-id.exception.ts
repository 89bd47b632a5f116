import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class MissingSessionIdException extends RestapException {
  constructor(message = 'This endpoint requires a session_id: send it in the Restap-Session-Id header.', headers?: Record<string, string>) {
    super(400, ERROR_CODES.missingSessionId, message, headers);
  }
}
