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

  /** Runs `setup` (e.g. `SwaggerModule.setup(...)`) once the app's routes are registered; at once if they already are. */
  serve(setup: () => void): void {
    if (this.routed) setup();
    else this.setup = setup;
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
