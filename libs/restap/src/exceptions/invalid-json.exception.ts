import { RestapException } from './restap.exception';

export class InvalidJsonException extends RestapException {
  constructor(message = 'The request body is not valid JSON.', headers?: Record<string, string>) {
    super(400, 'invalid_json', message, headers);
  }
}
