import { RestapException } from './restap.exception';

/** 410 approval_expired (issue 35, see docs/approvals.md). */
export class ApprovalExpiredException extends RestapException {
  constructor(message: string) {
    super(410, 'approval_expired', message);
  }
}
