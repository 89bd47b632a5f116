import { RestapException } from './restap.exception';

/** 409 approval_already_decided (issue 35, see docs/approvals.md). */
export class ApprovalDecidedException extends RestapException {
  constructor(message: string) {
    super(409, 'approval_already_decided', message);
  }
}
