import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** 405: a module route called with a method it does not serve; `Allow` lists the ones it does. */
export class MethodNotAllowedException extends RestapException {
  constructor(allow: readonly string[], message = `This endpoint accepts ${allow.join(', ')}.`) {
    super(405, ERROR_CODES.methodNotAllowed, message, { Allow: allow.join(', ') });
  }
}
