import OpenAI from 'openai';
import { openAiToolLoop, type TalkChunk, type TalkContext } from 'nestjs-restap';
import type { LlmConfig } from './llm.config';

/**
 * Answers a turn with any OpenAI-compatible server through the official `openai` package and the
 * module's tool loop: the model may call the app's capabilities (`ctx.tools`) with the caller's
 * credentials. Aborting `ctx.signal` (the client left /talk) cancels the upstream request.
 *
 * @example
 * for await (const chunk of adapter.answer(ctx)) console.log(chunk);
 */
export class OpenAiChatAdapter {
  private readonly client: OpenAI;

  constructor(private readonly config: LlmConfig) {
    this.client = new OpenAI({
      baseURL: config.baseUrl,
      // The package insists on a key; Ollama, llama.cpp and most local servers ignore it.
      apiKey: config.apiKey ?? 'not-needed',
      maxRetries: 1,
    });
  }

  /** The reply's text deltas and `tool.*` events, as the server and the tools produce them. */
  answer(ctx: TalkContext): AsyncIterable<string | TalkChunk> {
    // Usage on the stream: the tokens of each call show on its `chat` span and in gen_ai.client.token.usage.
    return openAiToolLoop(ctx, { client: this.client, model: this.config.model, request: { stream_options: { include_usage: true } } });
  }
}
