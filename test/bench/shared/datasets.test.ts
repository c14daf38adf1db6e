import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_SCIFACT, readDatasetText, scifactDir } from '../../../bench/shared/datasets';
import { loadSciFact } from '../../../bench/shared/scifact';

/** `npm run bench:search` and `bench:chat` read SciFact from the repository, so they run from a clone. */
describe('the SciFact copy in the repository', () => {
  it('is read by default, and SCIFACT_DIR still names another copy', () => {
    expect(scifactDir({})).toBe(BUNDLED_SCIFACT);
    expect(scifactDir({ SCIFACT_DIR: '/elsewhere/scifact' })).toBe('/elsewhere/scifact');
  });

  it('holds BEIR SciFact whole: 5,183 abstracts, the 300 test claims, every judged document present', () => {
    const { docs, queries } = loadSciFact(BUNDLED_SCIFACT);
    expect(docs).toHaveLength(5183);
    expect(new Set(docs.map((d) => d.id)).size).toBe(5183);
    expect(queries).toHaveLength(300);
    const ids = new Set(docs.map((d) => d.id));
    expect(queries.flatMap((q) => [...q.relevant]).filter((id) => !ids.has(id))).toEqual([]);
    const train = readDatasetText(join(BUNDLED_SCIFACT, 'qrels', 'train.tsv'))
      .trim()
      .split('\n');
    expect(train[0]).toBe('query-id\tcorpus-id\tscore');
    expect(train).toHaveLength(920);
  });

  it('keeps every file well under 4 MiB compressed', () => {
    const files = ['corpus.jsonl.gz', 'queries.jsonl.gz', ...readdirSync(join(BUNDLED_SCIFACT, 'qrels')).map((f) => join('qrels', f))];
    for (const f of files) expect(statSync(join(BUNDLED_SCIFACT, f)).size).toBeLessThan(3.5 * 1024 * 1024);
  });

  it('names a missing file and how to fix it', () => {
    expect(() => readDatasetText('/nonexistent/corpus.jsonl')).toThrow(
      /corpus\.jsonl \(or .*corpus\.jsonl\.gz\) not found: set SCIFACT_DIR/,
    );
  });
});
