import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { Talk, type TalkChunk, type TalkContext } from 'nestjs-restap';
import { benchReply } from './bench.responder';
import { LLM_CONFIG, type LlmConfig } from './llm.config';
import { OfflineResponder } from './offline.responder';
import { OpenAiChatAdapter } from './openai-chat.adapter';

/** Token of the sample's bench-mode flag (RESTAP_BENCH=1). */
export const BENCH_MODE = Symbol('BENCH_MODE');

/**
 * The sample's /talk handler: an OpenAI-compatible LLM when one is configured (it may call the
 * text capabilities as tools), else the offline responder. Either way the reply streams, and a client that leaves stops it (`ctx.signal`).
 */
@Injectable()
export class SampleBrain implements OnModuleInit {
  private readonly llm?: OpenAiChatAdapter;

  constructor(
    private readonly offline: OfflineResponder,
    @Optional() @Inject(LLM_CONFIG) private readonly config?: LlmConfig,
    @Optional() @Inject(BENCH_MODE) private readonly bench = false,
  ) {
    if (config) this.llm = new OpenAiChatAdapter(config);
  }

  onModuleInit(): void {
    const logger = new Logger('SampleBrain');
    if (this.bench) {
      logger.warn('Talk: bench mode (RESTAP_BENCH=1): instant replies, no LLM');
      return;
    }
    if (!this.config) {
      logger.log('Talk: offline responder (set LLM_BASE_URL and LLM_MODEL to use an LLM)');
      return;
    }
    // Origin and path only: a URL may carry credentials, the key is never printed.
    const url = new URL(this.config.baseUrl);
    logger.log(`Talk: model ${this.config.model} at ${url.origin}${url.pathname}`);
  }

  /** True when replies come from an LLM rather than the offline responder. */
  get online(): boolean {
    return this.llm !== undefined;
  }

  @Talk()
  answer(ctx: TalkContext): AsyncIterable<string | TalkChunk> | string | Promise<string> {
    if (this.bench) return benchReply(ctx);
    return this.llm ? this.llm.answer(ctx) : this.offline.stream(ctx);
  }
}
