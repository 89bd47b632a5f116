import { RestapException } from './restap.exception';

export class AgentErrorException extends RestapException {
  constructor(message = 'The agent failed to produce a reply.', headers?: Record<string, string>) {
    super(502, 'agent_error', message, headers);
  }
}
