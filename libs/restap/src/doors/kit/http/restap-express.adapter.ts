import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { expressMessageClasses } from './express-message-classes';

/**
 * Nest's `ExpressAdapter`, with one change: its HTTP server creates every request and response
 * already with the Express app's prototypes (`app.request`, `app.response`; see
 * {@link expressMessageClasses}). Optional, and it speeds up every route of the application, not
 * only RESTAP's.
 *
 * Express gives each request its API by swapping the prototypes of `req` and `res` when it
 * starts handling them (`Object.setPrototypeOf` in `app.handle`). V8 handles that swap badly: the
 * two objects, and everything hung on them during the request, survive young-generation
 * collections and are promoted to the old generation, so each request costs a copy and then a
 * full mark-compact to reclaim. Here the swap sets the prototype they already have, which changes
 * nothing (the two Express floor rows of `npm run bench` show what it saves; BENCHMARKS.md,
 * "Measurements behind the code").
 *
 * Nothing else changes: the objects are still `http.IncomingMessage` and `http.ServerResponse`
 * instances with Express's API, and a mounted Express sub-app still swaps to its own prototypes
 * (at the old cost). `app.request` and `app.response` become new objects that inherit from the
 * previous ones, so what is set on either applies. One edge: an Express sub-app mounted on the
 * host's own Express instance before Nest created the app inherits from the previous objects only,
 * so it does not see what is set on the new `app.request` later; set such additions before, or on
 * `express.request`. Nest's own server is kept, and requests take the stock path, in the cases
 * {@link buildsOnExpressPrototypes} lists (`forceCloseConnections`, among them).
 *
 * @example
 * const app = await NestFactory.create(AppModule, new RestapExpressAdapter());
 */
export class RestapExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions = {}): void {
    super.initHttpServer(options);
    if (!buildsOnExpressPrototypes(options)) return;
    const app = this.getInstance<Express>();
    const classes = expressMessageClasses(app);
    this.setHttpServer(options.httpsOptions ? createHttpsServer({ ...options.httpsOptions, ...classes }, app) : createServer(classes, app));
  }
}

/**
 * False where the server Nest created is kept: with `forceCloseConnections` (Nest tracks
 * connections on that server) and when `httpsOptions` bring their own message classes.
 */
export function buildsOnExpressPrototypes(options: NestApplicationOptions): boolean {
  const https = options.httpsOptions as { IncomingMessage?: unknown; ServerResponse?: unknown } | undefined;
  return !options.forceCloseConnections && !https?.IncomingMessage && !https?.ServerResponse;
}
