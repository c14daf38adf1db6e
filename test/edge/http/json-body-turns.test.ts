import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { jsonBody, LARGE_BODY_BYTES } from '../../../edge/http/json-body';
import { fromBodyParser } from '../../../edge/http/errors';

/**
 * The JSON body parser (issue 30): a large body is parsed in a turn of the event loop of its own,
 * one at a time, so callers whose bodies finish together are not parsed back to back before anyone
 * else's request is read; small bodies are parsed at once. It parses as express.json did.
 */
const parser = jsonBody({ limit: 4 * 2 ** 20, strict: true });

/** Runs the parser on `text` sent as a request body; resolves with what it made of it and the loop's turn it finished in. */
function parse(text: string | Buffer, turn: () => number, type = 'application/json'): Promise<{ body?: unknown; err?: any; turn: number }> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const req = Object.assign(Readable.from([bytes]), {
    method: 'POST',
    headers: { 'content-type': type, 'content-length': String(bytes.length) },
  }) as unknown as Request;
  return new Promise((resolve) =>
    parser(req, {} as Response, (err?: unknown) => resolve({ body: (req as { body?: unknown }).body, err, turn: turn() })),
  );
}

/** Counts the event loop's turns while `work` runs. */
async function counting<T>(work: (turn: () => number) => Promise<T>): Promise<T> {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return await work(() => turns);
  } finally {
    on = false;
  }
}

const large = (seed: number) =>
  JSON.stringify({ tools: Array.from({ length: 3000 }, (_, i) => ({ name: `t${seed}_${i}`, parameters: { type: 'object' } })) });

describe('the JSON body parser', () => {
  it('parses large bodies one per turn of the event loop, and small ones at once', async () => {
    expect(Buffer.byteLength(large(1))).toBeGreaterThan(LARGE_BODY_BYTES);
    const done = await counting((turn) =>
      Promise.all([parse(large(1), turn), parse(large(2), turn), parse(large(3), turn), parse('{"small":true}', turn)]),
    );
    expect(done.map((d) => d.err)).toEqual([undefined, undefined, undefined, undefined]);
    expect(done.slice(0, 3).map((d) => (d.body as { tools: unknown[] }).tools.length)).toEqual([3000, 3000, 3000]);
    const [a, b, c, small] = done.map((d) => d.turn);
    expect(a < b && b < c).toBe(true);
    expect(small).toBeLessThanOrEqual(a);
  });

  it('parses as express.json did: {} for an empty body, a byte order mark skipped, only objects and arrays when strict, malformed JSON a 400', async () => {
    const none = () => 0;
    expect((await parse('', none)).body).toEqual({});
    expect((await parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]), none)).body).toEqual({ a: 1 });
    expect((await parse(' \n[1,2]', none)).body).toEqual([1, 2]);
    for (const bad of ['"text"', '42', '{"a":', '{"a":1}x']) {
      const { err } = await parse(bad, none);
      expect(fromBodyParser(err)?.message).toBe('Malformed JSON body');
    }
    expect((await parse(`{"big":${JSON.stringify('x'.repeat(LARGE_BODY_BYTES))}`, none)).err.type).toBe('entity.parse.failed');
    // Another charset goes through express.json, which decodes it.
    expect((await parse(Buffer.from('{"a":"é"}', 'utf16le'), none, 'application/json; charset=utf-16le')).body).toEqual({ a: 'é' });
  });
});
