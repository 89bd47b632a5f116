import { RestapException } from './restap.exception';

/** 404 approval_not_found (issue 35, see docs/approvals.md). */
export class ApprovalNotFoundException extends RestapException {
  constructor(message: string) {
    super(404, 'approval_not_found', message);
  }
}
