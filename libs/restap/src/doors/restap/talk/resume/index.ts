import type { Provider } from '@nestjs/common';
import { TalkFrameStore } from '../../../../persistence/talk-frame.store';
import { TypeOrmTalkFrameStore } from '../../../../persistence/typeorm-talk-frame.store';
import { TalkResume } from './talk-resume.service';
import { TalkFramesSweeper } from './talk-frames.sweeper';
import { TalkStops } from './talk-stops';
import { TalkFrameWakeups } from './talk-frame.wakeups';

/** What resumable /talk streams (`talk.resume`) add to the module. Inert while the option is off. */
export const TALK_RESUME_PROVIDERS: Provider[] = [{ provide: TalkFrameStore, useClass: TypeOrmTalkFrameStore }, TalkResume, TalkFramesSweeper, TalkStops, TalkFrameWakeups];

export { TalkResume } from './talk-resume.service';
