import { RestapException } from './restap.exception';

export class InvalidRequestException extends RestapException {
  constructor(message = 'The request is invalid.', headers?: Record<string, string>) {
    super(400, 'invalid_request', message, headers);
  }
}
