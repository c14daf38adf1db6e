import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatformProcess, stopProcess, type PlatformProcess } from '../shared/processes';
import { freePort } from '../shared/server';

/** 200,000 letters without a space, different for each seed: the tokenizer's worst case (issue 17, item 1). */
function unbroken(seed: number, chars = 200_000): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < chars; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(String.fromCharCode(97 + ((x >>> 16) % 26)));
  }
  return out.join('');
}

interface Answer {
  status: number;
  text: string;
}

/** A POST on a connection of its own: `written` once the body is on its way, `answered` with the answer. */
function post(url: string, path: string, body: string, headers: Record<string, string>) {
  let answered!: Promise<Answer>;
  const written = new Promise<void>((wrote, failed) => {
    answered = new Promise((resolve, reject) => {
      const req = request(
        url + path,
        { method: 'POST', agent: false, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (d: string) => (text += d))
            .on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', (err) => (failed(err), reject(err)));
      req.end(body, () => wrote());
    });
  });
  return { written, answered };
}

/**
 * The model gateway with one worker process, as `platform start` runs it: a prompt of 200,000
 * letters without a space, sent through every route group and the chat proxy's `prev_context`, is
 * answered with its proper status, and the process answers `/healthz` while it reads such prompts.
 * End to end because what is tested is a worker process's event loop under load, over connections
 * of their own, through the gateway's /graphql and the chat proxy too.
 */
describe('a long unbroken prompt stalls no one', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-long-prompt-'));
  let p: PlatformProcess;
  let key: string;
  let user: { token: string; tenant: string };

  beforeAll(async () => {
    p = await startPlatformProcess(['start'], {
      PORT: String(await freePort()),
      PLATFORM_DATA_DIR: dataDir,
      WORKERS: '1',
      LOG_LEVEL: 'warn',
    });
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    key = `${boot.api_key}/{"is_cache": 0}`;
    const form = new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret, realm: boot.realm });
    const t = (await (await fetch(`${p.url}/auth/api/v1/oauth/connect/token`, { method: 'POST', body: form })).json()) as {
      access_token: string;
    };
    user = { token: t.access_token, tenant: boot.tenant_id };
  }, 120_000);
  afterAll(async () => {
    await stopProcess(p.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const json = { 'content-type': 'application/json' };
  const tooLong = (a: Answer) => {
    expect(a.status).toBe(400);
    expect(a.text).toMatch(/maximum context length is 8192 tokens|the model's maximum is 8192/);
  };
  const m = 'local-chat';
  const routes: [string, string, (text: string) => unknown, (a: Answer) => void][] = [
    [
      'azure chat/completions',
      `/proxy/api/v1/azure/openai/deployments/${m}/chat/completions?api-version=2024-10-21`,
      (text) => ({ messages: [{ role: 'user', content: text }] }),
      tooLong,
    ],
    [
      'azure embeddings',
      '/proxy/api/v1/azure/openai/deployments/local-embed/embeddings?api-version=2024-10-21',
      (text) => ({ input: text }),
      tooLong,
    ],
    [
      'gemini generateContent',
      `/proxy/api/v1/gemini/models/${m}:generateContent`,
      (text) => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
      tooLong,
    ],
    [
      'bedrock converse',
      `/proxy/api/v1/bedrock/model/${m}/converse`,
      (text) => ({ messages: [{ role: 'user', content: [{ text }] }] }),
      tooLong,
    ],
    [
      'bedrock invoke',
      `/proxy/api/v1/bedrock/model/${m}/invoke`,
      (text) => ({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: text }] }),
      tooLong,
    ],
    [
      'anthropic messages',
      `/proxy/api/v1/bedrock/v1/messages/anthropic?modelId=${m}`,
      (text) => ({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: text }] }),
      tooLong,
    ],
    [
      'graphql chat',
      '/graphql',
      (text) => ({
        query: 'mutation($i: ChatInput!) { chat(input: $i) { content } }',
        variables: { i: { model: m, messages: [{ role: 'USER', content: text }] } },
      }),
      (a) => {
        expect(a.status).toBe(200);
        expect(JSON.parse(a.text).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'context_length_exceeded' });
      },
    ],
    [
      'chat proxy prev_context',
      '/api/generate_answer',
      (text) => ({
        request: {
          user_cred: { token: user.token, client: { tenant_id: user.tenant } },
          bot_config: { caller_version: '1' },
          task_process: { service: 'test' },
          kvp: {},
          prev_context: text,
        },
        query: '$continue_answer',
        history_prompt: [{ user_query: 'What does the text say?', response: text }],
        api_key: key,
      }),
      (a) => {
        // The start of what was said is left out so the rest fits: a normal answer.
        expect(a.status).toBe(200);
        expect(JSON.parse(a.text)).toMatchObject({ response: expect.any(String), finish_reason: expect.stringMatching(/^(stop|length)$/) });
      },
    ],
  ];

  it.each(routes)(
    '%s: each prompt gets its status, and /healthz is answered before the last of them',
    async (_name, path, bodyOf, check) => {
      const order: string[] = [];
      const headers = path.startsWith('/proxy') || path === '/graphql' ? { ...json, 'api-key': key } : json;
      // Eight at once, each different (no cache), all on their way before /healthz is asked.
      const prompts = Array.from({ length: 8 }, (_, i) =>
        post(p.url, path, JSON.stringify(bodyOf(unbroken(100 * routes.findIndex((r) => r[1] === path) + i + 1))), headers),
      );
      await Promise.all(prompts.map((x) => x.written));
      const answers = prompts.map((x) => x.answered.then((a) => (order.push('prompt'), a)));
      const health = fetch(`${p.url}/healthz`).then(async (r) => (order.push('healthz'), { status: r.status, text: await r.text() }));
      const [h, ...all] = await Promise.all([health, ...answers]);
      expect(h).toEqual({ status: 200, text: '{"msg":"ok"}' });
      all.forEach(check);
      expect(order.indexOf('healthz')).toBeLessThan(order.length - 1);
    },
    120_000,
  );
});
