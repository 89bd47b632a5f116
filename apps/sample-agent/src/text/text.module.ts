import { Module } from '@nestjs/common';
import { TextController } from './text.controller';

/** POST /text/echo and /text/reverse, the text capabilities. */
@Module({ controllers: [TextController] })
export class TextModule {}
