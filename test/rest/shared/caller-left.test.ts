import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { errors } from 'undici';
import { z } from 'zod';
import { CallerLeft, isAbort, leftBy } from '../../../core/shared/cancel';
import { UpstreamFailed } from '../../../core/shared/errors';
import { createRestApp } from '../../../rest/shared/app';
import { define, type RestService } from '../../../rest/shared/routes';

/**
 * The REST edge when a caller leaves (issue 30): however the abort surfaces from the work it
 * stopped (the route's CallerLeft, an AbortError DOMException 'This operation was aborted', undici's
 * RequestAbortedError, either as the cause of another error), the request is logged once, at info
 * level, as a 499, and no error line or stack is written. A failure that is no abort still is one.
 */
const THROWN: Record<string, () => unknown> = {
  'an AbortError': () => new DOMException('This operation was aborted', 'AbortError'),
  "undici's RequestAbortedError": () => new errors.RequestAbortedError(),
  'an error caused by an abort': () =>
    new UpstreamFailed('Upstream failed', { cause: new DOMException('This operation was aborted', 'AbortError') }),
  CallerLeft: () => new CallerLeft(),
  'a failure that is no abort': () => new Error('the disk is on fire'),
};

/** Routes whose handler has started (its body read), and whose work has thrown. */
const started = new Set<number>();
const thrown = new Set<number>();

function service(): RestService {
  return {
    title: 'Leaving',
    version: '1',
    prefix: '/leaving',
    errorBody: (e) => ({ detail: e.message }),
    routes: Object.entries(THROWN).map(([name, make], i) =>
      define({
        method: 'post',
        path: `/${i}`,
        summary: name,
        input: { body: z.unknown() },
        responses: { 200: { description: 'never' } },
        // Throws once its caller has gone, as a model call aborted for it would.
        handle: (_input, { res }) =>
          new Promise((_resolve, reject) => {
            started.add(i);
            res.once('close', () =>
              setImmediate(() => {
                thrown.add(i);
                reject(make());
              }),
            );
          }),
      }),
    ),
  };
}

const until = async (ready: () => boolean) => {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('a caller who leaves the REST edge', () => {
  const lines: { level: number; msg: string; status?: number; reqId?: string; err?: unknown }[] = [];
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    server = createServer(createRestApp([service()], { log }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends a body, leaves once its handler runs, and resolves with what the request logged once its work has thrown. */
  async function leaveRoute(i: number) {
    const reqId = `left-${i}`;
    const req = request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: `/leaving/${i}`,
      headers: { 'content-type': 'application/json', 'x-request-id': reqId },
    });
    req.on('error', () => undefined);
    req.end('{}');
    await until(() => started.has(i));
    req.destroy();
    await until(() => thrown.has(i) && lines.some((l) => l.reqId === reqId && l.msg === 'request'));
    // The error handler runs on the rejection, before this turn ends: one more turn and it has logged, if it logs.
    await new Promise((resolve) => setImmediate(resolve));
    return lines.filter((l) => l.reqId === reqId);
  }

  Object.keys(THROWN).forEach((name, i) => {
    const abort = name !== 'a failure that is no abort';
    it(`${name} ${abort ? 'is a 499 at info level, and nothing else' : 'is still an error'}`, async () => {
      const mine = await leaveRoute(i);
      if (abort) expect(mine).toEqual([expect.objectContaining({ level: 30, msg: 'request', status: 499 })]);
      else
        expect(mine.map((l) => [l.level, l.msg])).toEqual(
          expect.arrayContaining([
            [30, 'request'],
            [50, 'unhandled error'],
          ]),
        );
    });
  });

  it('isAbort and leftBy tell an abort from a failure', () => {
    const left = new AbortController();
    left.abort(new CallerLeft());
    expect(leftBy(left.signal.reason, left.signal)).toBe(true);
    expect(leftBy(new DOMException('This operation was aborted', 'AbortError'), left.signal)).toBe(true);
    expect(leftBy(new UpstreamFailed('x', { cause: new errors.RequestAbortedError() }), left.signal)).toBe(true);
    expect(leftBy(new UpstreamFailed('the upstream reset the connection'), left.signal)).toBe(false);
    expect(leftBy(new DOMException('This operation was aborted', 'AbortError'), new AbortController().signal)).toBe(false);
    expect(isAbort(Object.assign(new Error('x'), { code: 'UND_ERR_ABORTED' }))).toBe(true);
    expect(isAbort(new Error('This operation was aborted'))).toBe(false);
  });
});
