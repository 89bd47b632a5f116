import { RestapInit1764700000000 } from './migrations/1764700000000-restap-init';
import { RestapToolSteps1764800000000 } from './migrations/1764800000000-restap-tool-steps';
import { RestapNewsEntity, RestapNewsSequenceEntity } from './entities/restap-news.entity';
import { RestapSessionEntity } from './entities/restap-session.entity';
import { RestapTurnEntity } from './entities/restap-turn.entity';
import { RestapA2aTaskEntity } from './entities/restap-a2a-task.entity';
import { RestapA2aTasks1764900000000 } from './migrations/1764900000000-restap-a2a-tasks';
import { RestapReplicas1765000000000 } from './migrations/1765000000000-restap-replicas';
import { RestapReplicaEntity } from './entities/restap-replica.entity';
import { RestapApprovalEntity } from './entities/restap-approval.entity';
import { RestapApprovals1765100000000 } from './migrations/1765100000000-restap-approvals';
import { RestapTalkFrames1765200000000 } from './migrations/1765200000000-restap-talk-frames';
import { RestapTalkFrameEntity } from './entities/restap-talk-frame.entity';
import { RestapA2aPushConfigEntity } from './entities/restap-a2a-push-config.entity';
import { RestapA2aPushConfigs1765238000000 } from './migrations/1765238000000-restap-a2a-push-configs';
import { RestapMcpSessionEntity } from './entities/restap-mcp-session.entity';
import { RestapMcpSessions1765238000001 } from './migrations/1765238000001-restap-mcp-sessions';
import { RestapMcpSessionOwner1765300000000 } from './migrations/1765300000000-restap-mcp-session-owner';
import { RestapCapabilityTasks1765300000001 } from './migrations/1765300000001-restap-capability-tasks';

/** Entities to add to the host's DataSource when it does not use `autoLoadEntities`. */
export const RESTAP_ENTITIES = [RestapSessionEntity, RestapTurnEntity, RestapNewsEntity, RestapNewsSequenceEntity, RestapA2aTaskEntity, RestapReplicaEntity, RestapApprovalEntity, RestapTalkFrameEntity, RestapA2aPushConfigEntity, RestapMcpSessionEntity];

/** Migrations to add to the host's DataSource `migrations` (run by `migrationsRun` or the TypeORM CLI). */
export const RESTAP_MIGRATIONS = [RestapInit1764700000000, RestapToolSteps1764800000000, RestapA2aTasks1764900000000, RestapReplicas1765000000000, RestapApprovals1765100000000, RestapTalkFrames1765200000000, RestapA2aPushConfigs1765238000000, RestapMcpSessions1765238000001, RestapMcpSessionOwner1765300000000, RestapCapabilityTasks1765300000001];

/** Tables the module needs; checked at startup. */
export const RESTAP_TABLES = ['restap_sessions', 'restap_turns', 'restap_news', 'restap_news_sequences'];

/** Columns later migrations add to those tables; checked at startup so an upgrade without them fails loudly. */
export const RESTAP_COLUMNS = [
  { table: 'restap_turns', column: 'tool_steps', migration: 'RestapToolSteps1764800000000' },
  // A whole table of a later migration: its key column is missing while the table is.
  { table: 'restap_a2a_tasks', column: 'id', migration: 'RestapA2aTasks1764900000000' },
  { table: 'restap_turns', column: 'runner', migration: 'RestapReplicas1765000000000' },
  { table: 'restap_replicas', column: 'id', migration: 'RestapReplicas1765000000000' },
  { table: 'restap_approvals', column: 'id', migration: 'RestapApprovals1765100000000' },
  { table: 'restap_talk_frames', column: 'frames', migration: 'RestapTalkFrames1765200000000' },
  { table: 'restap_a2a_push_configs', column: 'id', migration: 'RestapA2aPushConfigs1765238000000' },
  { table: 'restap_mcp_sessions', column: 'id_hash', migration: 'RestapMcpSessions1765238000001' },
  { table: 'restap_mcp_sessions', column: 'owner_hash', migration: 'RestapMcpSessionOwner1765300000000' },
  { table: 'restap_a2a_tasks', column: 'kind', migration: 'RestapCapabilityTasks1765300000001' },
];

export { RestapSessionEntity, RestapTurnEntity, RestapNewsEntity, RestapNewsSequenceEntity, RestapA2aTaskEntity, RestapReplicaEntity, RestapApprovalEntity, RestapInit1764700000000, RestapToolSteps1764800000000, RestapA2aTasks1764900000000, RestapReplicas1765000000000, RestapApprovals1765100000000, RestapTalkFrameEntity, RestapTalkFrames1765200000000, RestapA2aPushConfigEntity, RestapMcpSessionEntity, RestapA2aPushConfigs1765238000000, RestapMcpSessions1765238000001, RestapMcpSessionOwner1765300000000, RestapCapabilityTasks1765300000001 };
