import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run, startInTemp, type Started } from './server';

/**
 * Every service's OpenAPI document, as a started server serves it, passes `redocly lint` with the
 * repository's redocly.yaml (recommended rules, examples checked) without an error, and says what
 * a caller needs: servers, security, every path parameter, examples and answers' schemas.
 */
type Json = Record<string, any>;
const PUBLIC_URL = 'https://platform.example.org/base';
const PREFIXES = ['/auth/api/v1', '/cl/search/api', '/proxy/api/v1', '/api', '/admin/api/v1'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let server: Started;
const docs: Record<string, Json> = {};
beforeAll(async () => {
  server = await startInTemp('all', { PUBLIC_URL: `${PUBLIC_URL}/` });
  for (const prefix of PREFIXES) docs[prefix] = (await (await fetch(`${server.url}${prefix}/openapi.json`)).json()) as Json;
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Json })),
  );

describe('redocly lint', () => {
  it('finds no error in any document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const files = PREFIXES.map((prefix, i) => {
        const file = join(dir, `service-${i}.json`);
        writeFileSync(file, JSON.stringify(docs[prefix]));
        return file;
      });
      const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const env = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      const ran = await run(process.execPath, [cli, 'lint', ...files, '--format=json', '--config', join(ROOT, 'redocly.yaml')], { env });
      // One JSON report per file, written one after the other.
      const reports = JSON.parse(`[${ran.stdout.trim().replace(/\}\s*\{\s*"totals"/g, '},{"totals"')}]`) as Json[];
      expect(reports).toHaveLength(PREFIXES.length);
      const errors = reports.flatMap((r) =>
        r.problems
          .filter((p: Json) => p.severity === 'error')
          .map((p: Json) => `${p.location[0].source.ref} ${p.location[0].pointer}: ${p.ruleId}: ${p.message}`),
      );
      expect(errors).toEqual([]);
      expect(ran.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.each(PREFIXES)('%s/openapi.json', (prefix) => {
  it("calls this server first (a relative URL: the page's own origin), then PUBLIC_URL", () => {
    expect(docs[prefix].servers.map((s: Json) => s.url)).toEqual(['/', PUBLIC_URL]);
  });

  it('says who may call each operation, with schemes it declares', () => {
    const schemes = Object.keys(docs[prefix].components.securitySchemes ?? {});
    for (const { op } of operations(docs[prefix])) {
      expect(Array.isArray(op.security)).toBe(true);
      for (const requirement of op.security) for (const name of Object.keys(requirement)) expect(schemes).toContain(name);
    }
  });

  it('declares every path parameter', () => {
    for (const { path, op } of operations(docs[prefix])) {
      const declared = op.parameters
        .filter((p: Json) => p.in === 'path')
        .map((p: Json) => p.name)
        .sort();
      expect({ path, declared }).toEqual({ path, declared: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort() });
    }
  });
});

describe('what each document says', () => {
  const op = (prefix: string, method: string, path: string) => docs[prefix].paths[prefix + path][method] as Json;
  const param = (o: Json, name: string) => o.parameters.find((p: Json) => p.name === name) as Json;

  it('token: grant_type offers its allowed values, not a free string; userinfo takes a bearer token', () => {
    expect(param(op('/auth/api/v1', 'post', '/oauth/connect/token'), 'grant_type').schema).toMatchObject({
      enum: ['client_credentials', 'password', 'refresh_token', 'authorization_code'],
      default: 'client_credentials',
    });
    expect(param(op('/auth/api/v1', 'post', '/oauth/connect/user/login'), 'grant_type').schema).toMatchObject({
      enum: ['password', 'refresh_token'],
      default: 'password',
    });
    expect(op('/auth/api/v1', 'post', '/oauth/connect/token').security).toEqual([]);
    expect(param(op('/auth/api/v1', 'post', '/oauth/connect/introspect'), 'realm')).toMatchObject({
      in: 'query',
      required: true,
      example: 'default',
    });
    expect(op('/auth/api/v1', 'get', '/realms/{realm}/protocol/openid-connect/userinfo').security).toEqual([{ bearerAuth: [] }]);
    expect(docs['/auth/api/v1'].components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('search: a bearer scheme on every search', () => {
    expect(op('/cl/search/api', 'post', '/v2/search').security).toEqual([{ bearerAuth: [] }]);
    expect(param(op('/cl/search/api', 'post', '/v2/search'), 'query_string').example).toEqual(expect.any(String));
  });

  it('models: an api-key header scheme on every call, the model in the path or in ?modelId=, with an offline example', () => {
    expect(docs['/proxy/api/v1'].components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'api-key' }),
    );
    for (const { op: o } of operations(docs['/proxy/api/v1'])) expect(o.security).toEqual([{ apiKey: [] }]);
    const azure = op('/proxy/api/v1', 'post', '/azure/openai/deployments/{model}/chat/completions');
    expect(param(azure, 'model')).toMatchObject({ in: 'path', required: true, example: 'local-chat' });
    expect(param(azure, 'api-version')).toMatchObject({ in: 'query', required: true });
    expect(param(op('/proxy/api/v1', 'post', '/gemini/v1beta/models/{model}:generateContent'), 'model')).toMatchObject({
      in: 'path',
      example: 'local-chat',
    });
    expect(param(op('/proxy/api/v1', 'post', '/bedrock/v1/messages/nova'), 'modelId')).toMatchObject({
      in: 'query',
      required: true,
      example: 'local-chat',
    });
    expect(param(op('/proxy/api/v1', 'post', '/bedrock/model/{modelId}/converse'), 'modelId')).toMatchObject({
      in: 'path',
      required: true,
    });
  });

  it.each(['/proxy/api/v1', '/api'])('%s: every answer and every failure has a schema for each of its media types', (prefix) => {
    for (const { path, method, op: o } of operations(docs[prefix])) {
      for (const [status, r] of Object.entries(o.responses as Json)) {
        const content = Object.entries((r.content ?? {}) as Json);
        expect({ path, method, status, media: content.length > 0 }).toEqual({ path, method, status, media: true });
        for (const [type, m] of content)
          expect({ path, status, type, schema: Boolean(m.schema) }).toEqual({ path, status, type, schema: true });
      }
    }
  });

  it('models and chat: streams are documented with their media types', () => {
    const types = (prefix: string, path: string) => Object.keys(op(prefix, 'post', path).responses['200'].content);
    expect(types('/proxy/api/v1', '/azure/openai/deployments/{model}/chat/completions')).toEqual(['application/json', 'text/event-stream']);
    expect(types('/proxy/api/v1', '/gemini/models/{model}:streamGenerateContent')).toEqual(['text/event-stream', 'application/json']);
    expect(types('/api', '/stream_generate_answer')).toEqual(['text/event-stream', 'application/x-ndjson']);
  });

  it('chat: no header scheme (credentials are body fields), and the example body shows where they go', () => {
    expect(docs['/api'].components.securitySchemes).toBeUndefined();
    expect(docs['/api'].info.description).toMatch(/request\.user_cred\.token.*api_key/s);
    const example = op('/api', 'post', '/generate_answer').requestBody.content['application/json'].example;
    expect(example).toMatchObject({
      request: { user_cred: { token: expect.any(String), client: { tenant_id: expect.any(String) } } },
      api_key: expect.any(String),
    });
  });
});
