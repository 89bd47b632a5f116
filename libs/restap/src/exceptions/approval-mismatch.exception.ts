import { RestapException } from './restap.exception';

/** 409 approval_arguments_mismatch: an answer sent with a call other than the one the person was shown. */
export class ApprovalMismatchException extends RestapException {
  constructor(message: string) {
    super(409, 'approval_arguments_mismatch', message);
  }
}
