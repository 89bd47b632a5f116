import { RestapException } from './restap.exception';

/** 405: a module route called with a method it does not serve; `Allow` lists the ones it does. */
export class MethodNotAllowedException extends RestapException {
  constructor(allow: readonly string[], message = `This endpoint accepts ${allow.join(', ')}.`) {
    super(405, 'method_not_allowed', message, { Allow: allow.join(', ') });
  }
}
