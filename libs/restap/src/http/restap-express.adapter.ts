import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * Nest's `ExpressAdapter`, with one change: its HTTP server creates every request and response
 * already on the Express app's prototypes (`app.request`, `app.response`). Optional, and it
 * speeds up every route of the application, not only RESTAP's.
 *
 * Express gives each request its API by swapping the prototypes of `req` and `res` when it
 * starts handling them (`Object.setPrototypeOf` in `app.handle`). V8 handles that swap badly: the
 * two objects, and everything hung on them during the request, survive young-generation
 * collections and are promoted to the old generation, so each request costs a copy and then a
 * full mark-compact to reclaim. Here the swap sets the prototype they already have, which changes
 * nothing. Measured with Node 20 on the 2-vCPU bench machine (`npm run bench`, the two Express
 * floor rows): bare Express 5 with `express.json()` served 2.4–3.2x the requests, and instead of
 * 86 scavenges and 15 mark-compacts in 4 s it ran scavenges of 0.1–0.3 ms and no mark-compact.
 *
 * Nothing else changes: the objects are still `http.IncomingMessage` and `http.ServerResponse`
 * instances with Express's API, a mounted Express sub-app still swaps to its own prototypes (at
 * the old cost), and everything the host adds to `app.request` / `app.response` still applies.
 * With `forceCloseConnections`, Nest tracks connections on the server it created itself, so that
 * server is kept and requests take the usual path.
 *
 * @example
 * const app = await NestFactory.create(AppModule, new RestapExpressAdapter());
 */
export class RestapExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions = {}): void {
    super.initHttpServer(options);
    if (options.forceCloseConnections) return;
    const app = this.getInstance<Express>();
    const classes = expressMessageClasses(app);
    this.setHttpServer(options.httpsOptions ? createHttpsServer({ ...options.httpsOptions, ...classes }, app) : createServer(classes, app));
  }
}

/**
 * Subclasses of Node's request and response whose prototypes become the app's `request` and
 * `response`: each keeps the own properties of the object it replaces (`app`, and whatever the
 * host set on it) and inherits from the same Express API.
 */
export function expressMessageClasses(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
  app.request = adopt(ExpressRequest.prototype, app.request);
  app.response = adopt(ExpressResponse.prototype, app.response);
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
}

/** Gives `target` the own properties (but its own `constructor`) and the prototype of `source`. */
function adopt<T extends object>(target: object, source: T): T {
  const { constructor: _, ...own } = Object.getOwnPropertyDescriptors(source);
  Object.defineProperties(target, own);
  Object.setPrototypeOf(target, Object.getPrototypeOf(source));
  return target as T;
}
