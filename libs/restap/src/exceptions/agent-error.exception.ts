import { RestapException } from './restap.exception';
import { ERROR_CODES } from '../wire/constants';

export class AgentErrorException extends RestapException {
  constructor(message = 'The agent failed to produce a reply.', headers?: Record<string, string>) {
    super(502, ERROR_CODES.agentError, message, headers);
  }
}
