import express from 'express';
import request from 'supertest';
import { sendEmbeddings } from '../../../rest/models/embeddings-answer';

/**
 * The embeddings answer the OpenAI doors write themselves (issue 30: 2,048 float vectors printed as
 * one JSON.stringify held the event loop some 50 ms): the same JSON as the object it replaced, made
 * a slice of vectors at a time with the event loop turning between slices.
 */
const vectors = Array.from({ length: 200 }, (_, i) => Float32Array.from({ length: 16 }, (_, j) => (j % 3 ? 0 : ((i + 1) * (j - 7)) / 3e6)));
const expected = (format: 'float' | 'base64') => ({
  object: 'list',
  model: 'local-embed',
  data: vectors.map((v, index) => ({
    object: 'embedding',
    index,
    embedding: format === 'base64' ? Buffer.from(v.buffer).toString('base64') : Array.from(v),
  })),
  usage: { prompt_tokens: 42, total_tokens: 42 },
});

describe('the embeddings answer', () => {
  const turns: boolean[] = [];
  const app = express().get('/:format', async (req, res) => {
    // Runs at the event loop's next turn: before the answer is done only if writing it gave the loop back.
    let turned = false;
    setImmediate(() => (turned = true));
    await sendEmbeddings(res, { model: 'local-embed', vectors, promptTokens: 42, format: req.params.format as 'float' | 'base64' });
    turns.push(turned);
  });

  it.each(['float', 'base64'] as const)(
    'is the JSON of the answer object (%s), with the event loop turning while it is written',
    async (format) => {
      const r = await request(app).get(`/${format}`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.text).toBe(JSON.stringify(expected(format)));
      expect(turns.pop()).toBe(true);
    },
  );

  it('writes a value JSON cannot hold as null, as JSON.stringify does', async () => {
    const odd = express().get('/', async (_req, res) =>
      sendEmbeddings(res, { model: 'm', vectors: [Float32Array.from([1, Number.NaN, Number.POSITIVE_INFINITY, -0])], promptTokens: 1 }),
    );
    const r = await request(odd).get('/');
    expect(JSON.parse(r.text).data[0].embedding).toEqual([1, null, null, 0]);
  });
});
