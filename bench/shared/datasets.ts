/**
 * Where the benches find SciFact: the gzip copy in the repository (bench/datasets/scifact, see its
 * README for provenance and licence) unless SCIFACT_DIR names another folder in the BEIR layout.
 * Each file is read as it is, or from `<name>.gz` beside it, so an unpacked BEIR download works too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';

/** The repository root, from dist/bench/shared/ (built) or bench/shared/ (tests run the sources). */
const ROOT =
  [resolve(__dirname, '..', '..'), resolve(__dirname, '..', '..', '..')].find((d) => existsSync(join(d, 'package.json'))) ??
  resolve(__dirname, '..', '..', '..');

export const BUNDLED_SCIFACT = join(ROOT, 'bench', 'datasets', 'scifact');

export const scifactDir = (env: NodeJS.ProcessEnv = process.env): string => resolve(env.SCIFACT_DIR || BUNDLED_SCIFACT);

/** A data set file's text: `file` itself, or `file.gz` unpacked. */
export function readDatasetText(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8');
  if (existsSync(`${file}.gz`)) return gunzipSync(readFileSync(`${file}.gz`)).toString('utf8');
  throw new Error(`${file} (or ${file}.gz) not found: set SCIFACT_DIR to a folder in the BEIR layout, or restore bench/datasets/scifact`);
}
