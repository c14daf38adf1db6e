import { cacheKey } from '../../../core/models/answers/cache';
import { cosine, nearest, semanticPrompt } from '../../../core/models/answers/semantic-prompt';
import type { ChatRequest } from '../../../core/models/neutral';
import { hashingVectors } from '../../../core/shared/text/embedder';

const ask = (question: string, more: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  messages: [
    { role: 'system', text: 'Answer briefly.' },
    { role: 'user', text: question },
  ],
  ...more,
});
const shape = (r: ChatRequest, tenant = 'acme', catalog = 'local-chat') => semanticPrompt(tenant, catalog, r).shape;

describe('the semantic cache’s shape of a request', () => {
  it('is the same whatever the last user message says, and that text is what is embedded', () => {
    const a = semanticPrompt('acme', 'local-chat', ask('What is the capital of France?'));
    const b = semanticPrompt('acme', 'local-chat', ask('what is the capital of france'));
    expect(a.shape).toBe(b.shape);
    expect(a.text).toBe('What is the capital of France?');
    // It is not the exact key, which tells the two apart.
    expect(cacheKey('acme', 'local-chat', ask('a'))).not.toBe(cacheKey('acme', 'local-chat', ask('b')));
  });

  it('differs with everything else: tenant, model, sampling, tools, response format, roles, system and earlier texts', () => {
    const base = shape(ask('q'));
    const others = [
      shape(ask('q'), 'globex'),
      shape(ask('q'), 'acme', 'gpt-4o'),
      shape(ask('q', { temperature: 0.2 })),
      shape(ask('q', { maxTokens: 10 })),
      shape(ask('q', { topP: 0.5 })),
      shape(ask('q', { stop: ['\n'] })),
      shape(ask('q', { tools: [{ name: 'f', description: 'd', parameters: { type: 'object' } }] })),
      shape(ask('q', { responseFormat: { type: 'json_object' } })),
      shape({ model: 'm', messages: [{ role: 'user', text: 'q' }] }),
      shape({
        model: 'm',
        messages: [
          { role: 'system', text: 'Answer at length.' },
          { role: 'user', text: 'q' },
        ],
      }),
      shape({ model: 'm', messages: [{ role: 'user', text: 'earlier' }, ...ask('q').messages] }),
      shape({ model: 'm', messages: [...ask('q').messages, { role: 'assistant', text: 'A' }, { role: 'user', text: 'more' }] }),
      shape({ model: 'm', messages: [...ask('q').messages, { role: 'assistant', text: 'B' }, { role: 'user', text: 'more' }] }),
      shape({ model: 'm', messages: [{ role: 'user', text: 'q', attachments: [{ kind: 'image', mimeType: 'image/png', data: 'AAAA' }] }] }),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
    // How the answer is read is not part of it, as for the exact key.
    expect(shape(ask('q', { stream: true }))).toBe(base);
  });

  it('embeds only the last 8 KiB of a huge prompt; what comes before it is compared exactly', () => {
    const tail = 'the question at the end';
    const huge = (start: string) => semanticPrompt('acme', 'c', ask(start + 'x'.repeat(100_000) + tail));
    const a = huge('Once upon a time ');
    expect(a.text).toHaveLength(8192);
    expect(a.text.endsWith(tail)).toBe(true);
    expect(huge('Once upon a time ').shape).toBe(a.shape);
    expect(huge('Once upon a dime ').shape).not.toBe(a.shape);
    expect(semanticPrompt('acme', 'c', ask('short'), 4).text).toBe('hort');
  });
});

describe('similarity', () => {
  it('is the cosine of two vectors: 1 for the same direction, 0 for orthogonal or empty ones, -1 opposite', () => {
    expect(cosine(Float32Array.from([1, 2]), Float32Array.from([2, 4]))).toBeCloseTo(1, 6);
    expect(cosine(Float32Array.from([1, 0]), Float32Array.from([0, 3]))).toBe(0);
    expect(cosine(Float32Array.from([1, 0]), Float32Array.from([-1, 0]))).toBe(-1);
    expect(cosine(Float32Array.from([0, 0]), Float32Array.from([1, 0]))).toBe(0);
    expect(cosine(Float32Array.from([1]), Float32Array.from([1, 0]))).toBe(0);
  });

  it('of local-embed’s vectors: case and punctuation do not matter, another word does', () => {
    const [a, b, c, d] = hashingVectors([
      'What is the capital of France?',
      'what is the capital of france',
      'What is the capital city of France?',
      'How do glaciers retreat?',
    ]);
    expect(cosine(a, b)).toBeCloseTo(1, 5);
    expect(cosine(a, c)).toBeGreaterThan(0.8);
    expect(cosine(a, c)).toBeLessThan(0.95);
    expect(cosine(a, d)).toBeLessThan(0.2);
  });

  it('nearest: the entries at or above the threshold, most similar first, newest first among equals', () => {
    const v = (...x: number[]) => Float32Array.from(x);
    const entries = [
      { key: 'new-same', vector: v(1, 0) },
      { key: 'close', vector: v(1, 0.2) },
      { key: 'old-same', vector: v(2, 0) },
      { key: 'far', vector: v(0, 1) },
    ];
    expect(nearest(entries, v(1, 0), 0.95).map((e) => e.key)).toEqual(['new-same', 'old-same', 'close']);
    expect(nearest(entries, v(1, 0), 0.99).map((e) => e.key)).toEqual(['new-same', 'old-same']);
    expect(nearest([], v(1, 0), 0.5)).toEqual([]);
  });
});
