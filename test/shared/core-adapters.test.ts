import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceFiles } from './import-graph';

/**
 * docs/service-conventions.md, "Stores and peers": a core opener is given its adapters (the
 * composition root, services/<svc>/stores.ts, picks them) and core/ reads no environment.
 */
const ROOT = join(__dirname, '..', '..');
const files = sourceFiles(ROOT, ['core']);
const code = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

/** loadConfig's default parameter; core/models' catalog credentials until its vendors read them from options (issue 31). */
const MAY_READ_ENV = (file: string) => file === 'core/shared/config.ts';

describe("the cores' adapters", () => {
  it('are not picked by a core opener: core/<svc>/index.ts loads no engine folder (sqlite/, postgres/, redis/)', () => {
    const openers = files.filter((f) => /^core\/[^/]+\/index\.ts$/.test(f) && f !== 'core/shared/index.ts');
    expect(openers.length).toBeGreaterThanOrEqual(4);
    const picking = openers.filter(
      (f) =>
        /^\s*import\s+(?!type\b)[^;]*from\s+'\.\/(sqlite|postgres|redis)(\/[^']*)?';/m.test(code(f)) ||
        /require\('\.\/(sqlite|postgres|redis)/.test(code(f)),
    );
    expect(picking).toEqual([]);
  });

  it('come with no environment reads in core/', () => {
    expect(files.filter((f) => !MAY_READ_ENV(f) && /\bprocess\.env\b/.test(code(f)))).toEqual([]);
  });
});
