import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 404: a path under one of the module's routes that does not exist (e.g. `/talk/extra`). */
export class RouteNotFoundException extends RestapException {
  constructor(message = 'There is no such RESTAP endpoint: see /.well-known/restap.json.', headers?: Record<string, string>) {
    super(404, ERROR_CODES.notFound, message, headers);
  }
}
