import { Inject, Injectable, Optional } from '@nestjs/common';
import { Talk, type TalkContext } from 'nestjs-restap';
import { LLM_CONFIG, type LlmConfig } from './llm.config';
import { OfflineResponder } from './offline.responder';
import { OpenAiChatAdapter } from './openai-chat.adapter';

/**
 * The sample's /talk handler: an OpenAI-compatible LLM when one is configured, else the offline
 * responder. Either way the reply streams, and a client that leaves stops it (`ctx.signal`).
 */
@Injectable()
export class SampleBrain {
  private readonly llm?: OpenAiChatAdapter;

  constructor(
    private readonly offline: OfflineResponder,
    @Optional() @Inject(LLM_CONFIG) config?: LlmConfig,
  ) {
    if (config) this.llm = new OpenAiChatAdapter(config);
  }

  /** True when replies come from an LLM rather than the offline responder. */
  get online(): boolean {
    return this.llm !== undefined;
  }

  @Talk()
  answer(ctx: TalkContext): AsyncIterable<string> {
    return this.llm ? this.llm.stream(ctx.toMessages(), ctx.signal) : this.offline.stream(ctx);
  }
}
