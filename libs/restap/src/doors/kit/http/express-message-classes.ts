import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The classes made for each Express app, so a second server of the same app (two Nest apps on one adapter) shares them. */
const classesOf = new WeakMap<Express, { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse }>();

/**
 * Request and response classes for `http.createServer` whose prototypes become the app's `request`
 * and `response`. Each prototype inherits from the object it replaces, so that object keeps
 * applying: its `app`, and whatever anyone sets on it, before or after. (Plain function
 * constructors that kept the very same objects as prototypes cost the sample 1.7–2.5x the CPU per
 * POST /news; likely because V8 sizes an instance by its own constructor, which sets no
 * properties, so Node's properties no longer fit in the object.)
 */
export function expressMessageClasses(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  let classes = classesOf.get(app);
  if (!classes) {
    class ExpressRequest extends IncomingMessage {}
    class ExpressResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
    Object.setPrototypeOf(ExpressRequest.prototype, app.request);
    Object.setPrototypeOf(ExpressResponse.prototype, app.response);
    app.request = ExpressRequest.prototype as unknown as Express['request'];
    app.response = ExpressResponse.prototype as unknown as Express['response'];
    classes = { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
    classesOf.set(app, classes);
  }
  return classes;
}
