import express from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import { callerOf } from './caller';

/** A request on Express's own prototype, as its router hands it over. */
function expressRequest(trustProxy: unknown, headers: IncomingHttpHeaders, remoteAddress = '10.0.0.7'): express.Request {
  const app = express();
  app.set('trust proxy', trustProxy);
  const req = Object.create(app.request) as express.Request & { app: express.Express };
  Object.assign(req, { headers, socket: { remoteAddress } });
  return req;
}

describe('callerOf', () => {
  it.each([false, true, 'loopback', 1, '10.0.0.0/8'])("gives Express's req.ip, X-Forwarded-For or not (trust proxy %p)", (trust) => {
    for (const headers of [{}, { 'x-forwarded-for': '' }, { 'x-forwarded-for': '203.0.113.9' }, { 'x-forwarded-for': '203.0.113.9, 10.0.0.2' }]) {
      const req = expressRequest(trust, headers);
      expect(callerOf(req).ip).toBe(req.ip);
    }
  });

  it('falls back to the socket address for a request without req.ip (Node’s own)', () => {
    expect(callerOf({ headers: { 'x-forwarded-for': '203.0.113.9' }, socket: { remoteAddress: '10.0.0.7' } }).ip).toBe('10.0.0.7');
    expect('ip' in callerOf({ headers: {}, socket: {} })).toBe(false);
  });
});
