/**
 * A load run over many different requests: autocannon with one request whose path is taken, for
 * each request any connection sends, from the next of `paths` in turn (one shared counter), so
 * 50 connections cycle through the queries rather than repeating one. Same figures as load.ts.
 */
import autocannon from 'autocannon';
import { measure, type Measured } from '../shared/load';

export interface PathsTarget {
  name: string;
  baseUrl: string;
  method: 'POST' | 'GET';
  paths: readonly string[];
  body?: string;
  /** Read for every request, so a caller may swap in a fresh access token during a long run. */
  headers?: () => Record<string, string>;
  /** A substring every good body contains; checked on every response. */
  marker: string;
}

export function loadPaths(t: PathsTarget, seconds: number, connections: number): Promise<Measured> {
  let next = 0;
  const request: autocannon.Request = {
    method: t.method,
    path: t.paths[0],
    body: t.body,
    headers: t.headers?.(),
    setupRequest: (req) => ({ ...req, path: t.paths[next++ % t.paths.length], headers: t.headers?.() ?? req.headers }),
  };
  return measure(t.name, {
    url: t.baseUrl,
    connections,
    pipelining: 1,
    duration: seconds,
    // A slow server (MiniSearch answers in seconds under 50 connections) is measured, not cut off at autocannon's 10 s.
    timeout: 60,
    requests: [request],
    verifyBody: (body) => String(body).includes(t.marker),
  });
}
