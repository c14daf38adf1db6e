import { framingOf, jsonEvents, type JsonEvent, type JsonEventsOptions } from '../../../../core/shared/http/json-events';

async function* bodyOf(chunks: string[], fail?: Error) {
  for (const c of chunks) yield Buffer.from(c);
  if (fail) throw fail;
}

async function read(chunks: string[], o: Partial<JsonEventsOptions> = {}, fail?: Error) {
  const out: JsonEvent[] = [];
  let error: (Error & { code?: string }) | undefined;
  try {
    for await (const e of jsonEvents(bodyOf(chunks, fail), { framing: 'sse', who: 'Test', ...o })) out.push(e);
  } catch (err) {
    error = err as Error & { code?: string };
  }
  return { out, error };
}

describe('JSON event streams', () => {
  it('reads SSE objects with their event names and ids, up to [DONE], and drops what follows it', async () => {
    const body = Buffer.from('event: delta\ndata: {"n":1}\n\nid: 4\ndata: {"n":2}\n\ndata:\n\ndata: [DONE]\n\ndata: {"after":true}\n\n');
    // Every split in two, so an event and [DONE] are found wherever a chunk ends.
    for (let i = 1; i < body.length; i++) {
      const { out, error } = await read([body.subarray(0, i).toString('latin1'), body.subarray(i).toString('latin1')]);
      expect(error).toBeUndefined();
      expect(out).toEqual([
        { event: 'delta', data: { n: 1 } },
        { event: 'message', data: { n: 2 }, id: '4' },
      ]);
    }
  });

  it('reads NDJSON, one object per line (LF or CRLF), blank lines skipped, the last line without its LF', async () => {
    const { out } = await read(['{"n":1}\r\n{"n"', ':2}\n\n  \n', '{"n":3}'], { framing: 'ndjson' });
    expect(out.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(out.every((e) => e.event === 'message')).toBe(true);
  });

  it('hands out the good items before a bad one, then fails with upstream_bad_response', async () => {
    const { out, error } = await read(['data: {"n":1}\n\ndata: {oops\n\ndata: {"n":3}\n\n']);
    expect(out.map((e) => e.data)).toEqual([{ n: 1 }]);
    expect(error).toMatchObject({ code: 'upstream_bad_response', message: expect.stringMatching(/^Test .*not JSON/) });
  });

  it('fails a stream of ours that ended before [DONE]; a vendor stream may end with its body', async () => {
    let told = 0;
    expect((await read(['data: {"n":1}\n\ndata: [DONE]\n\n'], { doneRequired: true, onDone: () => told++ })).error).toBeUndefined();
    expect(told).toBe(1);
    const cut = await read(['data: {"n":1}\n\n'], { doneRequired: true, onDone: () => told++ });
    expect(told).toBe(1);
    expect(cut.out).toHaveLength(1);
    expect(cut.error).toMatchObject({ code: 'upstream_bad_response', message: expect.stringContaining('before [DONE]') });
    expect((await read(['data: {"n":1}\n\n'])).error).toBeUndefined();
  });

  it('maps a body that breaks midway, or the caller leaving', async () => {
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect((await read(['data: {"n":1}\n\n'], {}, reset)).error).toMatchObject({ code: 'upstream_unavailable' });
    const silent = Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' });
    expect((await read([], {}, silent)).error).toMatchObject({ code: 'upstream_timeout', message: 'Test went silent midway' });
    const caller = new AbortController();
    caller.abort(new Error('caller left'));
    expect((await read([], { signal: caller.signal }, new Error('aborted'))).error).toEqual(new Error('caller left'));
  });

  it('knows the framing from the content type', () => {
    expect(framingOf('text/event-stream; charset=utf-8')).toBe('sse');
    expect(framingOf('Application/X-NDJSON')).toBe('ndjson');
    expect(framingOf('application/json')).toBeUndefined();
    expect(framingOf(undefined)).toBeUndefined();
  });
});
