import { RestapException } from './restap.exception';

export class NotAcceptableException extends RestapException {
  constructor(message = 'None of the media types in Accept can be produced.', headers?: Record<string, string>) {
    super(406, 'not_acceptable', message, headers);
  }
}
