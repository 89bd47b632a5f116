import { Module } from '@nestjs/common';
import { A2A_PROVIDERS } from './index';

/**
 * The A2A door (`a2a` option): imported by RestapModule only when the door may open, so a host
 * without it never loads `@a2a-js/sdk`. It uses the core and the kit through RestapModule's exports.
 */
@Module({ providers: [...A2A_PROVIDERS] })
export class A2aDoorModule {}
