import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class StorageUnavailableException extends RestapException {
  constructor(message = 'The agent cannot reach its storage right now; retry shortly.', headers?: Record<string, string>) {
    super(503, ERROR_CODES.storageUnavailable, message, headers);
  }
}
