import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatformProcess, stopProcess, type PlatformProcess } from '../shared/processes';
import { freePort, ROOT } from '../shared/server';

const EXAMPLE = join(ROOT, 'docs', 'catalog.example.json');
const exampleIds = (JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { models: { id: string }[] }).models.map((m) => m.id);

/**
 * `platform start` with a catalog file (issue 17, item 12): the file adds to the built-in models,
 * and the start-up log says what is offered. End to end because it is the built command's start:
 * a process of its own, its environment and the log it writes.
 */
describe('a catalog file', () => {
  const dirs: string[] = [];
  const running: PlatformProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((p) => stopProcess(p.child)));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function start(catalog: string, env: Record<string, string> = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-catalog-'));
    dirs.push(dataDir);
    const p = await startPlatformProcess(['start'], {
      PORT: String(await freePort()),
      PLATFORM_DATA_DIR: dataDir,
      WORKERS: '1',
      LOG_LEVEL: 'info',
      MODELS_CATALOG_FILE: catalog,
      ...env,
    });
    running.push(p);
    const key = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { api_key: string }).api_key;
    return { ...p, key };
  }
  const chat = (url: string, key: string, model: string) =>
    fetch(`${url}/proxy/api/v1/azure/openai/deployments/${encodeURIComponent(model)}/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': key },
      body: JSON.stringify({
        messages: [
          { role: 'system', content: 'Ice melts. Seas rise as ice melts.' },
          { role: 'user', content: 'Why do seas rise?' },
        ],
      }),
    });

  it('docs/catalog.example.json: the built-in and the example models are listed, local-chat still answers, and the log names them but no credential', async () => {
    const secret = 'azure-key-that-must-never-be-logged';
    const p = await start(EXAMPLE, { AZURE_OPENAI_API_KEY: secret, GEMINI_API_KEY: '', BEDROCK_CREDENTIALS: '', VLLM_API_KEY: '' });
    const listed = (await (await fetch(`${p.url}/proxy/api/v1/models`, { headers: { 'api-key': p.key } })).json()) as {
      data: { id: string; owned_by: string }[];
    };
    expect(listed.data.map((m) => m.id)).toEqual(['local-chat', 'local-embed', 'local-image', ...exampleIds]);
    const answer = await chat(p.url, p.key, 'local-chat');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toMatch(/ice melts/i);
    // A vendor model without its credential fails as misconfigured, without reaching the vendor.
    const gemini = await chat(p.url, p.key, 'gemini-2.5-flash');
    expect(gemini.status).toBe(502);
    expect(await gemini.text()).toMatch(/upstream_misconfigured/);
    const log = p.output();
    expect(log).toMatch(/models: the catalog offers local-chat, local-embed, local-image, gpt-4o,/);
    expect(log).toMatch(/gemini-2\.5-flash: its credential variable GEMINI_API_KEY is not set/);
    expect(log).not.toMatch(/gpt-4o: its credential variable/);
    expect(log).not.toContain(secret);
  }, 150_000);

  it('leaving the built-ins out is said at start: the chat proxy warns that its default model is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-file-'));
    dirs.push(dir);
    const file = join(dir, 'catalog.json');
    writeFileSync(
      file,
      JSON.stringify({
        builtins: false,
        models: [{ id: 'ollama-chat', group: 'A', upstream: { provider: 'openai-compatible' }, contextLength: 4096 }],
      }),
    );
    const p = await start(file);
    const listed = (await (await fetch(`${p.url}/proxy/api/v1/models`, { headers: { 'api-key': p.key } })).json()) as {
      data: { id: string }[];
    };
    expect(listed.data.map((m) => m.id)).toEqual(['ollama-chat']);
    expect(p.output()).toMatch(/chat: CHAT_DEFAULT_MODEL local-chat is not an active chat model of the catalog/);
    expect((await chat(p.url, p.key, 'local-chat')).status).toBe(404);
  }, 150_000);
});
