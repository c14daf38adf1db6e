import { UpstreamFailed } from '../../../../core/shared/errors';
import { sseEvents, sseReader, type SseEvent } from '../../../../core/shared/http/sse';

/** The SSE reader (eventsource-parser under it), fed the same stream cut in every possible way. */
async function parse(chunks: (string | Buffer)[]): Promise<SseEvent[]> {
  async function* body() {
    for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c) : c;
  }
  const out: SseEvent[] = [];
  for await (const e of sseEvents(body(), 'Test')) out.push(e);
  return out;
}

/** The whole, one byte at a time, and every split in two. */
const cuts = (bytes: Buffer): Buffer[][] => [
  [bytes],
  [...bytes].map((b) => Buffer.from([b])),
  ...Array.from({ length: bytes.length - 1 }, (_, i) => [bytes.subarray(0, i + 1), bytes.subarray(i + 1)]),
];

describe('SSE reader', () => {
  const stream = Buffer.from(
    '\uFEFF: a comment\r\n' +
      'data: {"text":"héllo 🌍"}\r\n\r\n' +
      'event: delta\ndata: line one\ndata:line two\nid: 7\n\n' +
      'data: cr only\r\r' +
      'retry: 100\nunknown: x\ndata\n\n' +
      ':heartbeat\n\n' +
      'data:  two spaces\n\n' +
      'data: [DONE]\n\n',
  );
  const expected: SseEvent[] = [
    { event: undefined, id: undefined, data: '{"text":"héllo 🌍"}' },
    { event: 'delta', id: '7', data: 'line one\nline two' },
    { event: undefined, id: undefined, data: 'cr only' },
    { event: undefined, id: undefined, data: '' },
    { event: undefined, id: undefined, data: ' two spaces' },
    { event: undefined, id: undefined, data: '[DONE]' },
  ];

  it('reads the same events whatever the chunk boundaries (CRLF, CR, LF; UTF-8 split; BOM; comments)', async () => {
    const all = cuts(stream);
    expect(all.length).toBe(stream.length + 1);
    for (const chunks of all) expect(await parse(chunks)).toEqual(expected);
  });

  it('drops an event the body cut off before its blank line', async () => {
    expect(await parse(['data: whole\n\n', 'data: cut'])).toEqual([{ data: 'whole' }]);
    expect(await parse(['data: whole\n\n', 'data: cut\n'])).toEqual([{ data: 'whole' }]);
    expect(await parse(['data: a\n\n', 'data: b\r'])).toEqual([{ data: 'a' }]);
  });

  it('ends a line with a CR that closes the body', async () => {
    for (const chunks of cuts(Buffer.from('data: last\r\r'))) expect(await parse(chunks)).toEqual([{ data: 'last' }]);
    // A CR and an LF at the end are one line end, not two: the event is still open.
    expect(await parse(['data: open\r\n'])).toEqual([]);
  });

  it('skips blocks with no data line', async () => {
    expect(await parse([': ping\n\n', 'event: x\n\n', 'id: 3\n\n', 'data: y\n\n'])).toEqual([{ data: 'y' }]);
  });

  it('hands each event to the callback within push, in order', () => {
    const seen: string[] = [];
    const reader = sseReader((e) => void seen.push(e.data), 'Test');
    reader.push(Buffer.from('data: 1\n\ndata: 2\n'));
    expect(seen).toEqual(['1']);
    reader.push(Buffer.from('\n'));
    expect(seen).toEqual(['1', '2']);
    reader.end();
    expect(seen).toEqual(['1', '2']);
  });

  it('refuses an event larger than its bound as upstream_bad_response', () => {
    const reader = sseReader(() => undefined, 'Test', 64);
    reader.push(Buffer.from(`data: ${'x'.repeat(40)}\n`));
    let error: unknown;
    try {
      reader.push(Buffer.from(`data: ${'y'.repeat(40)}\n`));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UpstreamFailed);
    expect(error).toMatchObject({ code: 'upstream_bad_response', message: expect.stringContaining('Test') });
  });
});
