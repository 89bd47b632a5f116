import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';
import { RestapRegistry } from '../registry/restap.registry';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';

/**
 * Checks, once every module has been explored, that /talk has its handler: talk enabled with no
 * `@Talk()` method fails startup. With talk disabled, the route is dropped from the registry so
 * the module neither advertises it nor parses bodies on it.
 */
@Injectable()
export class TalkBootstrap implements OnApplicationBootstrap {
  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.talk.enabled) {
      delete this.registry.paths.talk;
      return;
    }
    if (!this.registry.getTalkHandler()) {
      throw new RestapBootstrapError(
        "/talk is enabled but no provider method has @Talk(): decorate the one method that answers /talk (it receives a TalkContext), or disable it with RestapModule.forRoot({ talk: false, … }).",
      );
    }
  }
}
