import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/**
 * 404: no resumable turn with that message_id for the session presented. The same answer for an
 * unknown id, another session's turn and an expired one, so the answer tells nothing about others.
 */
export class TurnNotFoundException extends RestapException {
  constructor(
    message = 'No resumable turn with this message_id for the session in Restap-Session-Id: it is unknown, belongs to another session, or expired.',
  ) {
    super(404, ERROR_CODES.turnNotFound, message);
  }
}
