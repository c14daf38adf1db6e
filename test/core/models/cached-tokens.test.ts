import { converseEvents } from '../../../core/models/vendors/bedrock/upstream-answer';
import { geminiDecoder } from '../../../core/models/vendors/gemini/upstream-answer';
import { openAiChunk, openAiCompletion } from '../../../core/models/vendors/openai/upstream-answer';

/** The prompt tokens a vendor read from its cache reach the neutral usage (`cachedTokens`), billed at the cached price (docs/spend.md). */
describe('cached prompt tokens from each vendor', () => {
  it('OpenAI and Azure: usage.prompt_tokens_details.cached_tokens, among the prompt tokens', () => {
    const usage = { prompt_tokens: 2006, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1920 } };
    const whole = openAiCompletion(
      { object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }], usage },
      'Azure OpenAI',
    );
    expect(whole.usage).toEqual({ promptTokens: 2006, completionTokens: 300, cachedTokens: 1920 });
    const last = openAiChunk({ object: 'chat.completion.chunk', choices: [], usage }, 'Azure OpenAI');
    expect(last.usage).toEqual({ promptTokens: 2006, completionTokens: 300, cachedTokens: 1920 });
    // No details: no cached count.
    expect(
      openAiChunk({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } }, 'x').usage,
    ).toEqual({
      promptTokens: 5,
      completionTokens: 1,
    });
  });

  it('Gemini: usageMetadata.cachedContentTokenCount, among promptTokenCount', () => {
    const e = geminiDecoder('Gemini')({
      candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1200, candidatesTokenCount: 10, cachedContentTokenCount: 1024 },
    });
    expect(e.usage).toEqual({ promptTokens: 1200, completionTokens: 10, cachedTokens: 1024 });
  });

  it('Bedrock Converse: usage.cacheReadInputTokens, counted apart from inputTokens (added to the prompt)', () => {
    const events = converseEvents({
      metadata: { usage: { inputTokens: 100, outputTokens: 20, totalTokens: 620, cacheReadInputTokens: 500 }, metrics: { latencyMs: 1 } },
    });
    expect(events).toEqual([{ usage: { promptTokens: 600, completionTokens: 20, cachedTokens: 500 } }]);
  });
});
