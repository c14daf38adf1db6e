/**
 * The peer for `npm run bench:search`: MiniSearch (defaults) over the SciFact corpus behind a bare
 * express POST handler, shaped like the platform's full-text call (query in the URL, JSON filters
 * body, the first `page_size` hits as JSON). PEER_WORKERS processes share PORT (node:cluster), as
 * many as the platform runs, so both sides may use every core. GET /healthz answers 200 only once
 * every worker has built its index.
 *
 * Env: PORT, PEER_CORPUS (corpus.jsonl, or read from corpus.jsonl.gz), PEER_WORKERS (1).
 */
import cluster from 'node:cluster';
import express from 'express';
import { readDatasetText } from '../shared/datasets';
import { peerIndex } from './peer';

const port = Number(process.env.PORT);
const corpus = process.env.PEER_CORPUS ?? '';
const workers = Math.max(1, Number(process.env.PEER_WORKERS ?? 1));

function serve(): void {
  const index = peerIndex();
  const docs = readDatasetText(corpus)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const d = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: d._id, title: d.title, text: d.text };
    });
  index.addAll(docs);
  let allReady = workers === 1;
  process.on('message', (m) => {
    if (m === 'all-ready') allReady = true;
  });

  const app = express();
  app.use(express.json());
  app.get('/healthz', (_req, res) => void res.status(allReady ? 200 : 503).json({ status: allReady ? 'ok' : 'starting' }));
  app.post('/search', (req, res) => {
    const query = typeof req.query.query_string === 'string' ? req.query.query_string : '';
    const size = Math.min(100, Math.max(1, Number(req.query.page_size ?? 20)));
    const hits = index.search(query);
    res.json({
      status: 'success',
      result_count: hits.length,
      result: hits.slice(0, size).map((h) => ({ id: h.id as string, title: h.title as string, score: h.score })),
    });
  });
  const server = app.listen(port, '127.0.0.1', () => process.send?.('ready'));
  server.keepAliveTimeout = 65_000;
}

if (!Number.isInteger(port) || port <= 0 || !corpus) {
  process.stderr.write('search peer: PORT and PEER_CORPUS are required\n');
  process.exit(2);
}
if (workers > 1 && cluster.isPrimary) {
  let ready = 0;
  for (let i = 0; i < workers; i++) {
    cluster
      .fork()
      .on('message', (m) => {
        if (m === 'ready' && ++ready === workers) for (const w of Object.values(cluster.workers ?? {})) w?.send('all-ready');
      })
      .on('exit', (code, signal) => {
        process.stderr.write(`search peer: a worker exited (${signal ?? `code ${code}`})\n`);
        process.exit(1);
      });
  }
  const stop = () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.removeAllListeners('exit').process.kill('SIGTERM');
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else {
  serve();
}
