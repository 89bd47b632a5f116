import { Controller, Delete, Get, HttpCode, Inject, Next, Param, Post, Req, Res, UseFilters, type Type } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RESTAP_OPTIONS, ROUTE_METADATA } from '../../../restap.constants';
import { RestapExceptionFilter } from '../../kit/http/restap-exception.filter';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { TalkResponder } from './talk.responder';
import { documentResponses, TALK_RESPONSES } from '../http/restap-openapi';
import { TalkResume } from './resume/talk-resume.service';

/**
 * The POST /talk controller, made per module definition because its path is an option.
 *
 * It writes the response itself (`@Res()`), so the host's global interceptors cannot reshape,
 * time out or buffer a reply, and takes no `@Body()`, so the host's global pipes never see the
 * request. Request errors go through our own filter; the host's error handling stays as it was.
 */
export function createTalkController(path: string): Type<unknown> {
  @Controller()
  @UseFilters(RestapExceptionFilter)
  class TalkController {
    constructor(
      private readonly talk: TalkResponder,
      @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
      private readonly resume: TalkResume,
    ) {}

    @Post(path)
    @HttpCode(200)
    handle(@Req() req: Request, @Res() res: Response, @Next() next: NextFunction): void {
      // With `talk: false` the route is not ours: let the host's own routes (or its 404) answer.
      if (!this.options.talk.enabled) return next();
      const turn = this.talk.accept(req);
      // Answered outside the interceptor chain: a host interceptor sees this method return at once.
      void this.talk.respond(turn, req, res);
    }

    /** Resumes a /talk stream (`talk.resume`, docs/resumable-talk.md); without the option the path is not served. */
    @Get(`${path.replace(/\/+$/, '')}/:messageId`)
    @HttpCode(200)
    resumeStream(@Param('messageId') messageId: string, @Req() req: Request, @Res() res: Response, @Next() next: NextFunction): void {
      if (!this.resume.config) return next();
      const resume = this.resume.accept(req, messageId);
      void this.resume.respond(resume, req, res);
    }

    /** Stops a running turn on purpose (`talk.resume`: a client leaving no longer does). */
    @Delete(`${path.replace(/\/+$/, '')}/:messageId`)
    stopTurn(@Param('messageId') messageId: string, @Req() req: Request, @Res() res: Response, @Next() next: NextFunction): void {
      if (!this.resume.config) return next();
      void this.resume.stop(this.resume.accept(req, messageId, true), res);
    }
  }
  Reflect.defineMetadata(ROUTE_METADATA, 'talk', TalkController);
  documentResponses(TalkController.prototype.handle, TALK_RESPONSES);
  return TalkController;
}
