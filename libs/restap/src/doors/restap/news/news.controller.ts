import { Controller, Get, HttpCode, Inject, NotFoundException, Post, Req, Res, Type, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { IDEMPOTENCY_KEY_HEADER, RESTAP_OPTIONS, ROUTE_METADATA } from '../../../restap.constants';
import { RestapExceptionFilter, writeRestapError } from '../../kit/http/restap-exception.filter';
import type { NewsAck } from '../../../interfaces/news.interface';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { resolveSessionId } from '../../../sessions/session-id';
import { writeJson } from '../../kit/http/restap-json.writer';
import { releaseParser } from '../../kit/http/held-connection';
import { parseIdempotencyKey, parseLimit, parseSince, parseWait } from '../../../core/news/news-request.parser';
import { NewsService } from '../../../core/news/news.service';
import { documentResponses, NEWS_POST_RESPONSES, NEWS_READ_RESPONSES } from '../http/restap-openapi';

/**
 * GET and POST on the news path (spec, "The /news Endpoint"). Created per module definition
 * because the path is an option. Neither route ever replies: POST answers with an acknowledgement
 * once the item is committed, GET with what is stored.
 */
export function createNewsController(path: string): Type<unknown> {
  @Controller()
  @UseFilters(RestapExceptionFilter)
  class NewsController {
    constructor(
      private readonly news: NewsService,
      @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    ) {}

    /**
     * Poll: `since` (ms, exclusive, default 0), `limit`, and `wait` (seconds, 1–30: hold the poll
     * until an item commits); session from header > query. A held poll whose client goes away is
     * dropped at once (its slot freed); nothing is written to a closed response.
     *
     * A poll with `wait` is answered outside Nest's handler chain, as /talk's turns are: this method
     * returns at once, so the router's and the interceptors' async frames are not kept suspended
     * for the whole wait of every held poll; its errors are written as the filter writes them.
     */
    @Get(path)
    read(@Req() req: Request, @Res() res: Response): Promise<void> | undefined {
      this.assertEnabled();
      const sessionId = resolveSessionId(req, undefined, ['header', 'query']);
      const since = parseSince(req.query.since);
      const { defaultLimit, maxLimit } = this.options.news;
      const limit = parseLimit(req.query.limit, defaultLimit, maxLimit);
      const wait = parseWait(req.query.wait);
      if (wait === undefined) return this.news.read({ sessionId, since, limit }).then((json) => writeJson(res, 200, json));
      const gone = new AbortController();
      const onClose = (): void => gone.abort();
      res.on('close', onClose);
      const client = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      // A held poll's connection gives back its HTTP parser, the largest part of what it costs held.
      const held = (): void => releaseParser(res);
      this.news.readWaiting({ sessionId, since, limit, waitMs: wait * 1000, client, signal: gone.signal, held }).then(
        (json) => {
          res.off('close', onClose);
          if (json !== undefined && !res.writableEnded && !res.destroyed) writeJson(res, 200, json);
        },
        (error: unknown) => {
          res.off('close', onClose);
          writeRestapError(res, error);
        },
      );
      return undefined;
    }

    /**
     * Write: the body is already parsed by the front door (DoorKit.jsonBody); session from header > query > body.
     * The acknowledgement is written once the item is committed.
     */
    @Post(path)
    @HttpCode(200)
    receive(@Req() req: Request, @Res() res: Response): Promise<void> {
      this.assertEnabled();
      const body: unknown = req.body;
      const sessionId = resolveSessionId(req, body);
      const idempotencyKey = parseIdempotencyKey(req.headers[IDEMPOTENCY_KEY_HEADER]);
      return this.news.receive({ body, sessionId, idempotencyKey }).then((ack: NewsAck) => writeJson(res, 200, JSON.stringify(ack)));
    }

    private assertEnabled(): void {
      // The route exists whenever the module is imported (paths are static, options may be async).
      if (!this.options.news.enabled) throw new NotFoundException('This agent does not serve /news.');
    }
  }
  Reflect.defineMetadata(ROUTE_METADATA, 'news', NewsController);
  documentResponses(NewsController.prototype.read, NEWS_READ_RESPONSES);
  documentResponses(NewsController.prototype.receive, NEWS_POST_RESPONSES);
  return NewsController;
}
