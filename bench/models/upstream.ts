/**
 * The fake upstream of `npm run bench:models`, in its own process: the tests' OpenAI-wire fake
 * (test/shared/fakes/openai-upstream.ts), answering at once and keeping no requests. It writes its URL to
 * the file named by BENCH_UPSTREAM_FILE and serves until stopped.
 */
import { writeFileSync } from 'node:fs';
import { startFakeOpenAi } from '../../test/shared/fakes/openai-upstream';

async function main() {
  const file = process.env.BENCH_UPSTREAM_FILE;
  if (!file) throw new Error('BENCH_UPSTREAM_FILE is required');
  const fake = await startFakeOpenAi({ record: false });
  writeFileSync(file, JSON.stringify({ url: fake.url }));
  const stop = () => void fake.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
