import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { configParts } from '../../../bin/deps';
import { startPlatform, type RunningPlatform } from '../../../bin/start';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { loadConfig } from '../../../core/shared/config';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import type { RecordedRequest } from '../../shared/fakes/fake-http';
import { testModules } from '../../shared/helpers';
import { freePort } from '../shared/server';

/**
 * What the tests of clients that leave share (issue 30: a caller who leaves is a 499 at info level,
 * once, never an error): the whole platform in this process with its pino output captured at info
 * level, behind a fake OpenAI-wire upstream for `oc-chat` and `oc-embed` that each case scripts to
 * stall before answering (the client leaves mid-request) or after a few pieces (mid-stream); no
 * retries, so each scripted step is one upstream request.
 */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface Leaving {
  url: string;
  platform: RunningPlatform;
  upstream: FakeOpenAi;
  apiKey: string;
  boot: Readonly<Record<string, string>>;
  /** Every line logged since start. */
  lines: LogLine[];
  stop(): Promise<void>;
}

export async function startLeaving(): Promise<Leaving> {
  const upstream = await startFakeOpenAi();
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-leaving-'));
  const catalog = join(dataDir, 'catalog.json');
  const oc = (id: string, kind: string) => ({
    id,
    group: 'A',
    kind,
    contextLength: 8192,
    upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'fake' },
  });
  writeFileSync(catalog, JSON.stringify({ models: [...DEFAULT_CATALOG.models, oc('oc-chat', 'chat'), oc('oc-embed', 'embedding')] }));
  const lines: LogLine[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  const modules = testModules();
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      PLATFORM_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      MODELS_CATALOG_FILE: catalog,
      METRICS_PORT: '0',
      MODELS_UPSTREAM_RETRIES: '0',
    },
    configParts(modules),
  );
  const platform = await startPlatform(config, { role: 'all', modules, log });
  const boot = platform.bootstrap!.values;
  return {
    url: platform.url,
    platform,
    upstream,
    apiKey: boot.api_key,
    boot,
    lines,
    async stop() {
      await platform.close();
      await upstream.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `ready()` holds, checking every 20 ms; throws `what` after `ms` (a generous bound, well inside jest's timeout). */
export async function until<T>(ready: () => T | undefined | false, what = 'the awaited event', ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = ready();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The upstream's next request once it has arrived. */
export const nextUpstream = (l: Leaving, seen: number): Promise<RecordedRequest> =>
  until(() => l.upstream.requests[seen], 'upstream request');

/** How a case scripts the upstream: no answer at all (the client leaves mid-request), or two pieces and then nothing (mid-stream). */
export const STALL = { stall: true } as const;
export const TWO_PIECES = { answer: ['one ', 'two ', 'three ', 'four '], stallAfter: 3 };

/**
 * Sends a request the client then leaves: mid-request once the upstream has it, mid-stream once the
 * first bytes of the answer have come. Resolves once the gateway has cut its upstream request.
 */
export async function leave(
  l: Leaving,
  req: { path: string; headers: Record<string, string>; body: unknown; midStream: boolean },
): Promise<void> {
  l.upstream.script(req.midStream ? TWO_PIECES : STALL);
  const seen = l.upstream.requests.length;
  const client = new AbortController();
  const answer = fetch(l.url + req.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...req.headers },
    body: JSON.stringify(req.body),
    signal: client.signal,
  });
  const upstream = await nextUpstream(l, seen);
  if (req.midStream) {
    const res = await answer;
    expect(res.status).toBe(200);
    await res.body!.getReader().read();
  }
  client.abort();
  await answer.catch(() => undefined);
  await upstream.cut;
}

/** The lines a request logged (its request id), once its access line (the last) is out. */
export async function linesOf(l: Leaving, reqId: string): Promise<LogLine[]> {
  await until(() => l.lines.some((x) => x.reqId === reqId && x.msg === 'request'), `access log line for ${reqId}`);
  return l.lines.filter((x) => x.reqId === reqId || x.requestId === reqId);
}

/** Every warning or error logged from line `from` on (an error line, or the chat proxy's "the model failed midway"). */
export const troubleSince = (l: Leaving, from: number) =>
  l.lines
    .slice(from)
    .filter((x) => x.level >= 40)
    .map((x) => `${x.level} ${x.msg} ${JSON.stringify(x.err ?? '')}`);

/** One line at info level with status 499 (the access log's, or graphql-ws's for a socket), and nothing else. */
export const ONE_499 = [expect.objectContaining({ level: 30, status: 499 })];
