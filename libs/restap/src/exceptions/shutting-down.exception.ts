import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 503: this instance is shutting down and takes no new work; retry (another replica may answer). */
export class ShuttingDownException extends RestapException {
  constructor(message = 'The agent is shutting down and takes no new requests; retry shortly.', headers: Record<string, string> = { 'Retry-After': '1' }) {
    super(503, ERROR_CODES.shuttingDown, message, headers);
  }
}
