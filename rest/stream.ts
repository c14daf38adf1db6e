import type { Request, Response } from 'express';

/**
 * A response that streams JSON objects: server-sent events (`data: {...}` per event, `data: [DONE]`
 * at the end) or, when the caller asks with `Accept: application/x-ndjson`, one object per line.
 * `signal` aborts when the caller goes away, so producers (model streams) can stop.
 */
export interface ObjectStream {
  readonly format: 'sse' | 'ndjson';
  readonly signal: AbortSignal;
  send(value: unknown): void;
  end(): void;
}

export const wantsNdjson = (req: Request) => (req.get('accept') ?? '').includes('application/x-ndjson');

export function openObjectStream(req: Request, res: Response, opts: { heartbeatMs?: number } = {}): ObjectStream {
  const format = wantsNdjson(req) ? 'ndjson' : 'sse';
  const controller = new AbortController();
  res.status(200).set({
    'Content-Type': format === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  // SSE comments keep idle proxies from closing the connection while a model thinks.
  const heartbeat = format === 'sse' ? setInterval(() => res.write(': ping\n\n'), opts.heartbeatMs ?? 15_000) : undefined;
  heartbeat?.unref();
  let ended = false;
  const finish = () => {
    if (heartbeat) clearInterval(heartbeat);
  };
  res.once('close', () => {
    finish();
    if (!ended) controller.abort();
  });
  return {
    format,
    signal: controller.signal,
    send(value) {
      if (ended || res.writableEnded) return;
      const json = JSON.stringify(value);
      res.write(format === 'sse' ? `data: ${json}\n\n` : `${json}\n`);
    },
    end() {
      if (ended) return;
      ended = true;
      finish();
      if (!res.writableEnded) res.end(format === 'sse' ? 'data: [DONE]\n\n' : undefined);
    },
  };
}
