import { RestapException } from './restap.exception';

export class MissingSessionIdException extends RestapException {
  constructor(message = 'This endpoint requires a session_id: send it in the Restap-Session-Id header.', headers?: Record<string, string>) {
    super(400, 'missing_session_id', message, headers);
  }
}
