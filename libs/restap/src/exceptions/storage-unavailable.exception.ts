import { RestapException } from './restap.exception';

export class StorageUnavailableException extends RestapException {
  constructor(message = 'The agent cannot reach its storage right now; retry shortly.', headers?: Record<string, string>) {
    super(503, 'storage_unavailable', message, headers);
  }
}
