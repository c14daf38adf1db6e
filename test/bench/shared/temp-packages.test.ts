import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { installTempPackages } from '../../../bench/shared/temp-packages';

describe('installTempPackages', () => {
  let prefix: string;
  beforeEach(() => {
    prefix = mkdtempSync(join(tmpdir(), 'temp-packages-test-'));
    mkdirSync(join(prefix, 'node_modules', '@scope', 'peer'), { recursive: true });
    writeFileSync(
      join(prefix, 'node_modules', '@scope', 'peer', 'package.json'),
      JSON.stringify({ name: '@scope/peer', version: '1.2.3' }),
    );
    writeFileSync(join(prefix, 'node_modules', '@scope', 'peer', 'bin.js'), '');
  });
  afterEach(() => rmSync(prefix, { recursive: true, force: true }));

  it('uses the copy already there, without installing, when every version and the ready file match', () => {
    const log = jest.fn();
    expect(installTempPackages(basename(prefix), { '@scope/peer': '1.2.3' }, log, '@scope/peer/bin.js')).toBe(join(prefix, 'node_modules'));
    expect(log).not.toHaveBeenCalled();
  });
});
