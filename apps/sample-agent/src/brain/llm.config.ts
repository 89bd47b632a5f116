/** An OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter…). */
export interface LlmConfig {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Model name as the server knows it, e.g. `gpt-4o-mini` or `llama3.2`. */
  model: string;
  /** API key; local servers usually need none. */
  apiKey?: string;
}

/** Injection token of the sample's `LlmConfig | undefined` (undefined: offline responder). */
export const LLM_CONFIG = Symbol('LLM_CONFIG');

/**
 * Reads LLM_BASE_URL, LLM_MODEL and LLM_API_KEY. Without LLM_BASE_URL the agent runs offline;
 * with it, LLM_MODEL is required.
 */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const baseUrl = env.LLM_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  if (!/^https?:\/\/[^/]/i.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new Error(`LLM_BASE_URL must be an absolute http(s) URL such as http://127.0.0.1:11434/v1, got '${baseUrl}'.`);
  }
  const model = env.LLM_MODEL?.trim();
  if (!model) throw new Error('LLM_BASE_URL is set but LLM_MODEL is not: set LLM_MODEL to the model to call (e.g. gpt-4o-mini, llama3.2).');
  const apiKey = env.LLM_API_KEY?.trim();
  return { baseUrl, model, ...(apiKey ? { apiKey } : {}) };
}
