import { Module } from '@nestjs/common';
import { PlaygroundDoor } from './playground.door';

/** The playground page (`playground` option): imported by RestapModule only when it is enabled. */
@Module({ providers: [PlaygroundDoor] })
export class PlaygroundDoorModule {}
