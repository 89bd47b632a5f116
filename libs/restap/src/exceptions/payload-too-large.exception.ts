import { RestapException } from './restap.exception';

export class PayloadTooLargeException extends RestapException {
  constructor(message = 'The request body is too large.', headers?: Record<string, string>) {
    super(413, 'payload_too_large', message, headers);
  }
}
