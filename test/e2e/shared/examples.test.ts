import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPlatformProcess, stopProcess, type PlatformProcess } from './processes';
import { childEnv, freePort, ROOT } from './server';

const run = promisify(execFile);

/**
 * Every client example (examples/*.mjs), run as its first lines say a user runs it: the variables
 * `npm run -s platform -- credentials --shell` exports (and BASE), then a plain `node` process,
 * against the default start (`platform start`) with two worker processes, on the offline models.
 * Each must exit 0 printing what it promises; a new example fails here until it says what that is.
 * Each SDK is the version the project installs. On one worker, graphql-sse's single connection
 * mode worked; on two, its example failed with a 404 (its requests reached different workers).
 */
const PROMISES: Record<string, (out: string, env: Record<string, string>) => void> = {
  'openai-chat.mjs': (out) => {
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
  },
  'openai-responses.mjs': (out) => {
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
  },
  'ai-sdk-openai.mjs': (out) => {
    expect(out).toContain('tool call: [["get_weather",{"city":"Paris"}]]');
    expect(out).toContain('answer: get_weather returned: {"city":"Paris","temperature_c":21,"sky":"clear"}');
  },
  'ai-sdk-azure.mjs': (out) => {
    expect(out).toContain('tool call: [["get_weather",{"city":"Paris"}]]');
    expect(out).toContain('answer: get_weather returned: {"city":"Paris","temperature_c":21,"sky":"clear"}');
  },
  'anthropic.mjs': (out) => {
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c": 21, "sky": "sunny"}');
    expect(out).toMatch(/input tokens: [1-9]\d*/);
  },
  'google-genai.mjs': (out) => {
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
    expect(out).toMatch(/tokens: [1-9]\d*/);
  },
  'bedrock-converse.mjs': (out) => {
    expect(out).toContain('tool call: get_weather {"city":"Paris"} tool_use');
    expect(out).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
    expect(out).toMatch(/tokens: [1-9]\d*/);
  },
  'openid-client.mjs': (out, env) => {
    expect(out).toContain(`introspection: true ["search"] ${env.CLIENT_ID}`);
    expect(out).toContain('verified for search:');
    expect(out).toContain('verified for models: no, ERR_JWT_CLAIM_VALIDATION_FAILED');
  },
  'graphql-subscriptions.mjs': (out) => {
    expect(out).toMatch(/urql: [1-9]\d* characters/);
    expect(out).toMatch(/graphql-sse: [1-9]\d* characters/);
    expect(out).toMatch(/executor: [1-9]\d* characters/);
    expect(out).toContain('same answer: true');
  },
};

const EXAMPLES = readdirSync(join(ROOT, 'examples'))
  .filter((f) => f.endsWith('.mjs'))
  .sort();

describe('every client example runs as it says against the default start with two workers', () => {
  let p: PlatformProcess;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-examples-'));
    p = await startPlatformProcess(['start'], {
      PORT: String(await freePort()),
      PLATFORM_DATA_DIR: dataDir,
      WORKERS: '2',
      LOG_LEVEL: 'warn',
    });
    // The examples' own first step, in a shell: eval "$(npm run -s platform -- credentials --shell)".
    const { stdout } = await run('bash', ['-c', 'eval "$(npm run -s platform -- credentials --shell --data-dir "$D")" && env -0'], {
      cwd: ROOT,
      env: childEnv({ D: dataDir, npm_config_loglevel: 'error' }),
    });
    const exported = new Map(stdout.split('\0').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    env = Object.fromEntries(
      ['REALM', 'TENANT_ID', 'CLIENT_ID', 'CLIENT_SECRET', 'USERNAME', 'PASSWORD', 'API_KEY'].map((k) => [k, exported.get(k) ?? '']),
    );
    env.BASE = p.url;
  }, 120_000);
  afterAll(async () => {
    if (p) await stopProcess(p.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('knows what each example promises', () => {
    expect(Object.keys(PROMISES).sort()).toEqual(EXAMPLES);
    expect(Object.values(env).every(Boolean)).toBe(true);
  });

  it.each(EXAMPLES)(
    '%s exits 0 with what it promises',
    async (name) => {
      const { stdout } = await run(process.execPath, [join(ROOT, 'examples', name)], { cwd: ROOT, env: childEnv(env), timeout: 90_000 });
      PROMISES[name](stdout, env);
    },
    120_000,
  );
});
