import OpenAI from 'openai';
import type { TalkMessage } from 'nestjs-restap';
import type { LlmConfig } from './llm.config';

/**
 * Streams a chat completion from any OpenAI-compatible server through the official `openai`
 * package. Aborting `signal` (the client left /talk) cancels the upstream HTTP request.
 *
 * @example
 * for await (const text of adapter.stream(ctx.toMessages(), ctx.signal)) process.stdout.write(text);
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

  /** The reply's text deltas, as the server produces them. */
  async *stream(messages: TalkMessage[], signal: AbortSignal): AsyncGenerator<string> {
    const completion = await this.client.chat.completions.create({ model: this.config.model, messages, stream: true }, { signal });
    for await (const chunk of completion) {
      const text = chunk.choices[0]?.delta?.content;
      if (text) yield text;
    }
  }
}
