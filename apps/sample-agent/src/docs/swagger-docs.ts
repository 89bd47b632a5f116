import { Injectable, Module, type OnModuleInit } from '@nestjs/common';

/**
 * When the sample's Swagger UI (/docs, /docs-json, /docs-yaml) joins the Express router: during
 * the application's init, after Nest has registered every controller's route and before its
 * not-found handler, so requests for the agent's own endpoints do not walk Swagger's routes first.
 * Set up before init instead, Swagger's nine handlers would sit ahead of every route of the app.
 */
@Injectable()
export class SwaggerDocs implements OnModuleInit {
  private setup?: () => void;
  private routed = false;

  /**
   * Runs `setup` (e.g. `SwaggerModule.setup(...)`) once the app's routes are registered. Call it
   * before `app.init()`: once init ran, Nest's not-found handler is in place and routes added
   * after it are never reached.
   */
  serve(setup: () => void): void {
    if (this.routed) throw new Error('SwaggerDocs.serve() after app.init(): its routes would sit behind the not-found handler; call it before init.');
    this.setup = setup;
  }

  onModuleInit(): void {
    this.routed = true;
    this.setup?.();
    this.setup = undefined;
  }
}

/** Provides {@link SwaggerDocs}. */
@Module({ providers: [SwaggerDocs], exports: [SwaggerDocs] })
export class SwaggerDocsModule {}
