/**
 * `npm run bench:upload-body`: what a /graphql body of GRAPHQL_MAX_BODY_BYTES (16 MiB by default)
 * made of one huge string does to everyone else (issue 34: `uploadDocument` carries a file in
 * base64). The platform (`platform start`, WORKERS=1 unless set, so every request meets the same
 * event loop) is probed on `/healthz`, one probe after another, while UPLOAD_BODY_COUNT bodies of
 * each kind are sent UPLOAD_BODY_CONCURRENCY at a time:
 * - `refused kind`: a file name no reader takes: the body is parsed, the upload refused before decoding;
 * - `bad base64 at its end`: decoded to its last slice (1 MiB of text per turn), then refused;
 * - `a 12 MiB text file`: the whole upload: decoding, extraction, passages, vectors, the write
 *   (sent one at a time whatever the concurrency: what REST's multipart upload of the same file costs too).
 * Prints each kind's statuses, the CPU time the platform's main thread spent per request (Linux) and
 * the probes' p50, p99 and max, the longest any other caller waited.
 *
 * Env: UPLOAD_BODY_COUNT (6), UPLOAD_BODY_CONCURRENCY (2), WORKERS (1), LOG_LEVEL (warn). Needs `npm run build` first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_GRAPHQL_MAX_BODY_BYTES } from '../../core/shared/config';
import { flood, loopCpuMs, probe, statusesOf, summary, type FloodCall } from '../models/probe';
import { tokens } from '../shared/http-client';
import { freePorts, machineLine, makeTempDir, runBench, startPlatform } from '../shared/platform';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

const UPLOAD = 'mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id chunkCount } }';

/** An uploadDocument request of this file name and base64 text. */
const body = (fileName: string, base64: string) => JSON.stringify({ query: UPLOAD, variables: { i: { fileName, contentBase64: base64 } } });

/** Base64 characters that fit a body of `limit` bytes with the rest of the request around them (a multiple of 4). */
const fitting = (limit: number) => (limit - 512) & ~3;

/** About `bytes` of plain text in sentences of ordinary words (what a real document's extraction and passages cost). */
function text(bytes: number): string {
  const words = ['otters', 'rivers', 'glaciers', 'climate', 'passages', 'search', 'moss', 'stream', 'north', 'winter', 'light', 'stone'];
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = `Sentence ${i} tells of ${words[i % 12]} and ${words[(i * 7) % 12]} near the ${words[(i * 5) % 12]}. `;
    out.push(s);
    size += s.length;
  }
  return out.join('').slice(0, bytes);
}

async function main(): Promise<number> {
  process.env.WORKERS ||= '1';
  const count = intEnv('UPLOAD_BODY_COUNT', 6);
  const concurrency = intEnv('UPLOAD_BODY_CONCURRENCY', 2);
  const limit = DEFAULT_GRAPHQL_MAX_BODY_BYTES;
  const out = process.stdout;
  out.write(
    `${machineLine()}\nplatform WORKERS=${process.env.WORKERS}; /graphql bodies of about ${limit} bytes (GRAPHQL_MAX_BODY_BYTES), one string each; ` +
      `/healthz probed one request after another (5 ms apart) from this process; a new connection for every request\n\n`,
  );
  const dir = makeTempDir('upload-body-bench-');
  const [port] = await freePorts(1);
  const platform = await startPlatform(dir, port);
  const headers = await tokens(platform.url, platform.boot).headers();
  const chars = fitting(limit);
  const file = Buffer.from(text((chars / 4) * 3)).toString('base64');
  const kinds: { name: string; call: FloodCall; count: number; concurrency: number }[] = [
    { name: 'refused kind', call: { path: '/graphql', headers, body: body('tool.exe', 'A'.repeat(chars)) }, count, concurrency },
    {
      name: 'bad base64 at its end',
      call: { path: '/graphql', headers, body: body('notes.txt', `${'A'.repeat(chars - 4)}!!!!`) },
      count,
      concurrency,
    },
    {
      name: `a ${Math.round((file.length * 3) / 4 / 2 ** 20)} MiB text file`,
      call: { path: '/graphql', headers, body: body('big.txt', file) },
      count: 1,
      concurrency: 1,
    },
  ];
  out.write('| bodies | answers | loop CPU ms per request | p50 ms | p99 ms | max ms |\n|---|---|---:|---:|---:|---:|\n');
  const idle = summary(await probe(platform.url, sleep(2000)));
  out.write(`| idle | | | ${idle.p50} | ${idle.p99} | ${idle.max} |\n`);
  for (const k of kinds) {
    const pid = platform.child.proc.pid;
    const before = loopCpuMs(pid);
    const sent = flood(platform.url, () => k.call, k.count, k.concurrency);
    const s = summary(await probe(platform.url, sent));
    const after = loopCpuMs(pid);
    const cpu = before === undefined || after === undefined ? '' : ((after - before) / k.count).toFixed(1);
    out.write(`| ${k.count} × ${k.name} | ${statusesOf(await sent)} | ${cpu} | ${s.p50} | ${s.p99} | ${s.max} |\n`);
  }
  return 0;
}

runBench('bench:upload-body', main);
