import { databaseTargetFromEnv, DatabaseTarget } from './database/database.options';
import { llmConfigFromEnv, type LlmConfig } from './brain/llm.config';

/** Everything the sample reads from its environment, read in one place. */
export interface SampleConfig {
  database: DatabaseTarget;
  newsScope: 'global' | 'session';
  /** The LLM behind /talk; undefined runs the offline responder. */
  llm?: LlmConfig;
  /** RESTAP_BENCH=1: instant talk replies for `npm run bench`. */
  bench?: boolean;
}

export function sampleConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SampleConfig {
  const scope = env.RESTAP_NEWS_SCOPE ?? 'global';
  if (scope !== 'global' && scope !== 'session') {
    throw new Error(`RESTAP_NEWS_SCOPE must be 'global' or 'session', got '${scope}'.`);
  }
  const llm = llmConfigFromEnv(env);
  return { database: databaseTargetFromEnv(env), newsScope: scope, ...(llm ? { llm } : {}), bench: env.RESTAP_BENCH === '1' };
}
