import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

/** The `@Talk()` handler did not finish within `talk.timeoutMs`. */
export class AgentTimeoutException extends RestapException {
  constructor(message = 'The agent did not finish its reply in time.', headers?: Record<string, string>) {
    super(504, ERROR_CODES.agentTimeout, message, headers);
  }
}
