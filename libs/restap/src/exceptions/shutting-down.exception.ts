import { RestapException } from './restap.exception';

/** 503: this instance is shutting down and takes no new work; retry (another replica may answer). */
export class ShuttingDownException extends RestapException {
  constructor(message = 'The agent is shutting down and takes no new requests; retry shortly.', headers: Record<string, string> = { 'Retry-After': '1' }) {
    super(503, 'shutting_down', message, headers);
  }
}
