import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { CATALOG_PATH, CatalogService, type TalkContext } from 'nestjs-restap';

/** Pause between streamed words, so the reply visibly streams in a terminal. */
const WORD_DELAY_MS = 10;

/**
 * The sample's reply when no LLM is configured: says so plainly, explains how to connect one
 * and lists what the agent can do, from its own catalog. Streamed word by word.
 */
@Injectable()
export class OfflineResponder {
  private text?: string;

  constructor(private readonly catalog: CatalogService) {}

  /** The offline reply, one word (with its trailing space) per chunk; stops when `ctx.signal` fires. */
  async *stream(ctx: TalkContext): AsyncGenerator<string> {
    for (const word of this.reply().split(/(?<=\s)(?=\S)/)) {
      if (ctx.signal.aborted) return;
      yield word;
      await sleep(WORD_DELAY_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
    }
  }

  /** The full reply text (built once: the catalog does not change while the app runs). */
  reply(): string {
    if (this.text) return this.text;
    const { agent, capabilities } = this.catalog.getCatalog();
    const offered = capabilities
      .filter((c) => c.id !== 'talk')
      .map((c) => `- ${c.title} (${c.method} ${c.endpoint})${c.description ? `: ${c.description}` : ''}`);
    this.text = [
      `I'm ${agent.name}, and I'm running offline: no language model is configured, so I can't hold a real conversation yet.`,
      '',
      'To connect one, set LLM_BASE_URL to any OpenAI-compatible API (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter), LLM_MODEL to the model name and, if the server needs one, LLM_API_KEY; then restart me.',
      '',
      offered.length ? 'Meanwhile, here is what I can do:' : 'I have no other capabilities yet.',
      ...offered,
      '',
      `Everything I offer is described in my discovery document at ${CATALOG_PATH}.`,
    ].join('\n');
    return this.text;
  }
}
