import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** A request URL as it may be logged: every `session_id` query value replaced (it is a bearer secret). */
export function redactUrl(url: string): string {
  return url.replace(/([?&]session_id=)[^&#]*/gi, '$1[redacted]');
}

/**
 * The sample's access log (RESTAP_ACCESS_LOG=1): method, path with `session_id` redacted, status
 * and duration, when the response ends. Headers and bodies are never logged.
 */
export function accessLog(logger = new Logger('Access')): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log(`${req.method} ${redactUrl(req.originalUrl)} ${res.statusCode} ${ms.toFixed(1)} ms${res.writableFinished ? '' : ' (client left)'}`);
    });
    next();
  };
}
