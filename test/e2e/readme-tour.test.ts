import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { bootstrapPath } from '../../bin/bootstrap';
import { startPlatform } from '../../bin/start';
import { ROOT, run, startInTemp, type Started } from './server';

/** The bash between the README's tour markers, fences removed. */
function tourScript(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- tour:start -->');
  const end = readme.indexOf('<!-- tour:end -->');
  if (start < 0 || end < start) throw new Error('README has no tour markers');
  return readme.slice(start, end).split('\n').filter((l) => !l.startsWith('```') && !l.startsWith('<!--')).join('\n');
}

describe("the README's tour, on a server started like npm start", () => {
  let platform: Started;
  beforeAll(async () => {
    platform = await startInTemp('all');
  });
  afterAll(() => platform.stop());

  it('creates the bootstrap credentials on first start, readable only by the owner', () => {
    expect(platform.bootstrap?.created).toBe(true);
    const file = bootstrapPath(platform.dataDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(creds).sort()).toEqual(['client_id', 'client_secret', 'password', 'realm', 'tenant_id', 'username']);
  });

  it('runs every command of the tour successfully', async () => {
    // Any HTTP error fails the script: curl is wrapped with --fail-with-body and the shell with -e.
    const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body -sS "$@"; echo; }\n';
    const ran = await run('bash', ['-c', prelude + tourScript()], { env: { BASE: platform.url, PLATFORM_DATA_DIR: platform.dataDir } });
    expect(ran.stderr.replace(/npm warn .*\n/gi, '')).toBe('');
    expect(ran.status).toBe(0);
    const out = ran.stdout;
    expect(out).toContain('{"msg":"ok"}');
    expect(out).toContain('"token_type":"Bearer"');
    expect(out).toContain('"active":"true"');
    expect(out).toContain('{"active":"false"}');
    expect(out).toContain('"keys":[{');
    expect(out).toContain('"token_endpoint"');
    expect(out).toContain('"tokenType":"Bearer"');
    expect(out).toMatch(/"realm":\{"id":"[0-9a-f-]{36}","name":"default"/);
  });

  it('reuses the data directory on a second start without new credentials', async () => {
    await platform.close();
    const again = await startPlatform(platform.config, 'all', pino({ level: 'silent' }));
    try {
      expect(again.bootstrap?.created).toBe(false);
      expect(again.bootstrap?.bootstrap).toEqual(platform.bootstrap?.bootstrap);
    } finally {
      await again.close();
    }
    platform = { ...platform, close: async () => undefined };
  });
});
