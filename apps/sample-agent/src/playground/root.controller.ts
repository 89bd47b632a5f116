import { Controller, Get, Redirect } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

/** Where the sample's playground page is served (RestapModule's `playground.path`). */
export const PLAYGROUND_PATH = '/playground';

/** `GET /` opens the playground: a person who starts the sample lands on the agent's page, not on JSON. */
@ApiExcludeController()
@Controller()
export class RootController {
  @Get()
  @Redirect(PLAYGROUND_PATH, 302)
  root(): void {}
}
