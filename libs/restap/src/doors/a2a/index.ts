import { A2aSdkLogging } from './a2a-sdk.logging';
import { A2aTaskStore } from './a2a-task.store';
import { A2aDoor } from './a2a.door';
import { A2aAgentExecutor } from './a2a-agent.executor';
import { RemoteCancels } from './remote-cancels';
import { A2aPushStore } from './a2a-push.store';
import { A2aTaskWakeups } from './a2a-task.wakeups';

/** The A2A door's providers; they do nothing unless the `a2a` option enables the door. */
export const A2A_PROVIDERS = [A2aTaskWakeups, A2aTaskStore, A2aPushStore, A2aAgentExecutor, RemoteCancels, A2aDoor, A2aSdkLogging];

export { A2aTaskStore, A2aDoor };
export { CAPABILITY_EXTENSION_URI, TALK_SKILL_ID } from './a2a.constants';
