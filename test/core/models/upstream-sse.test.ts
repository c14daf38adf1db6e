import { sseEvents, type SseEvent } from '../../../core/models/upstream/sse';

/** The incremental SSE parser, fed the same stream cut in every possible way. */
async function parse(chunks: (string | Buffer)[]): Promise<SseEvent[]> {
  async function* body() {
    for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c) : c;
  }
  const out: SseEvent[] = [];
  for await (const e of sseEvents(body())) out.push(e);
  return out;
}

/** Every single-byte split of `bytes`, plus the whole and one byte at a time. */
const cuts = (bytes: Buffer): Buffer[][] => [
  [bytes],
  [...bytes].map((b) => Buffer.from([b])),
  ...Array.from({ length: bytes.length - 1 }, (_, i) => [bytes.subarray(0, i + 1), bytes.subarray(i + 1)]),
];

describe('SSE parser', () => {
  const stream = Buffer.from(
    '\uFEFF: a comment\r\n' +
    'data: {"text":"héllo 🌍"}\r\n\r\n' +
    'event: delta\ndata: line one\ndata:line two\nid: 7\n\n' +
    'data: cr only\r\r' +
    'retry: 100\nunknown: x\ndata\n\n' +
    'data: [DONE]\n\n',
  );
  const expected: SseEvent[] = [
    { event: 'message', data: '{"text":"héllo 🌍"}' },
    { event: 'delta', data: 'line one\nline two', id: '7' },
    { event: 'message', data: 'cr only', id: '7' },
    { event: 'message', data: '', id: '7' },
    { event: 'message', data: '[DONE]', id: '7' },
  ];

  it('reads events whatever the chunk boundaries (CRLF, CR, LF; UTF-8 split; BOM; comments)', async () => {
    for (const chunks of cuts(stream)) expect(await parse(chunks)).toEqual(expected);
  });

  it('drops an event the body cut off before its blank line', async () => {
    expect(await parse(['data: whole\n\n', 'data: cut'])).toEqual([{ event: 'message', data: 'whole' }]);
    expect(await parse(['data: a\n\n', 'data: b\r'])).toEqual([{ event: 'message', data: 'a' }]);
  });

  it('skips blocks with no data line', async () => {
    expect(await parse([': ping\n\n', 'event: x\n\n', 'data: y\n\n'])).toEqual([{ event: 'message', data: 'y' }]);
  });
});
