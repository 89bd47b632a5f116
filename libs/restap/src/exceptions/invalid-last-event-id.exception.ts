import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 400: a resumed /talk stream's `Last-Event-ID` is not an event id of that turn. */
export class InvalidLastEventIdException extends RestapException {
  constructor(message = 'Last-Event-ID must be the id of an event of this turn: a whole number, as sent in its `id:` line.') {
    super(400, ERROR_CODES.invalidLastEventId, message);
  }
}
