import { llmConfigFromEnv } from './llm.config';

describe('Sample LLM configuration from the environment', () => {
  it('without LLM_BASE_URL the agent is offline', () => {
    expect(llmConfigFromEnv({ LLM_MODEL: 'x', LLM_API_KEY: 'k' })).toBeUndefined();
  });

  it('reads LLM_BASE_URL, LLM_MODEL and the optional LLM_API_KEY', () => {
    expect(llmConfigFromEnv({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.2' })).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' });
    expect(llmConfigFromEnv({ LLM_BASE_URL: 'https://api.openai.com/v1', LLM_MODEL: 'gpt-4o-mini', LLM_API_KEY: 'sk-1' })).toMatchObject({ apiKey: 'sk-1' });
  });

  it('LLM_BASE_URL without LLM_MODEL, or a relative URL, is refused with the fix in the message', () => {
    expect(() => llmConfigFromEnv({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/set LLM_MODEL/);
    expect(() => llmConfigFromEnv({ LLM_BASE_URL: 'localhost:11434', LLM_MODEL: 'x' })).toThrow(/absolute http\(s\) URL/);
  });
});
