import { RestapException } from './restap.exception';

export class UnsupportedMediaTypeException extends RestapException {
  constructor(message = 'Send the body as application/json.', headers?: Record<string, string>) {
    super(415, 'unsupported_media_type', message, headers);
  }
}
