import { Module } from '@nestjs/common';
import { AguiDoor } from './agui.door';

/**
 * The AG-UI door (`agui` option): imported by RestapModule only when the door may open, so a host
 * without it never loads `@ag-ui/*`. It uses the core and the kit through RestapModule's exports.
 */
@Module({ providers: [AguiDoor] })
export class AguiDoorModule {}
