import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogError, loadCatalog, loadCatalogFile } from '../../../core/models/catalog/catalog';
import { catalogReport } from '../../../core/models/catalog/catalog-report';

const EXAMPLE = join(__dirname, '..', '..', '..', 'docs', 'catalog.example.json');
const gptX = {
  id: 'gpt-x',
  group: 'A',
  upstream: { provider: 'azure-openai', baseUrl: 'https://x.test', credentialEnv: 'AZURE_KEY' },
  contextLength: 128000,
};

describe('the model catalog', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'catalog-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (content: unknown) => {
    const f = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
    return f;
  };
  const ids = (f?: string) => loadCatalog(f).map((m) => m.id);

  it("defaults to the local provider's chat, embedding and image models", () => {
    expect(loadCatalog().map((m) => [m.id, m.group, m.upstream.provider, m.status])).toEqual([
      ['local-chat', 'A', 'local', 'Active'],
      ['local-embed', 'embedding', 'local', 'Active'],
      ['local-image', 'A', 'local', 'Active'],
    ]);
  });

  it("adds a file's models to the built-in ones", () => {
    const f = file({ models: [{ ...gptX, status: 'Deactivated', inputKinds: ['text', 'image'] }] });
    expect(ids(f)).toEqual(['local-chat', 'local-embed', 'local-image', 'gpt-x']);
    expect(loadCatalog(f)[3]).toMatchObject({ id: 'gpt-x', status: 'Deactivated', kind: 'chat', inputKinds: ['text', 'image'] });
    expect([...loadCatalogFile(f).sources]).toEqual([
      ['local-chat', 'built-in'],
      ['local-embed', 'built-in'],
      ['local-image', 'built-in'],
      ['gpt-x', 'file'],
    ]);
  });

  it("lets a file's model with a built-in's id take its place, and says so", () => {
    const f = file({
      models: [
        {
          id: 'local-chat',
          group: 'A',
          upstream: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1:8b' },
          contextLength: 4096,
        },
      ],
    });
    const c = loadCatalogFile(f);
    expect(c.models.map((m) => [m.id, m.upstream.provider])).toEqual([
      ['local-chat', 'openai-compatible'],
      ['local-embed', 'local'],
      ['local-image', 'local'],
    ]);
    expect(c.sources.get('local-chat')).toBe('file, in place of the built-in');
  });

  it('leaves out the built-in models when `builtins` is false, or keeps only those it lists', () => {
    expect(ids(file({ builtins: false, models: [gptX] }))).toEqual(['gpt-x']);
    expect(ids(file({ builtins: ['local-embed'], models: [gptX] }))).toEqual(['local-embed', 'gpt-x']);
    expect(ids(file({ builtins: ['local-chat'] }))).toEqual(['local-chat']);
  });

  it('names what is wrong with a bad file', () => {
    expect(() => loadCatalog(file({ models: [{ id: 'm', group: 'Z', upstream: { provider: 'local' }, contextLength: 0 }] }))).toThrow(
      /models\.0\.group.*models\.0\.contextLength/,
    );
    const broken = file('{');
    expect(() => loadCatalog(broken)).toThrow(`MODELS_CATALOG_FILE ${broken}`);
    expect(() => loadCatalog(file({ builtins: ['local-chatt'] }))).toThrow(
      /builtins: true, false, or a list of built-in model ids \(local-chat, local-embed, local-image\)/,
    );
    expect(() => loadCatalog(file({ builtins: false }))).toThrow(CatalogError);
    expect(() => loadCatalog(file({ models: [gptX, gptX] }))).toThrow(/unique/);
  });

  it('loads the example catalog of docs/ with the real loader: every vendor, credentials named by variable', () => {
    const c = loadCatalogFile(EXAMPLE);
    expect(c.models.slice(0, 3).map((m) => m.id)).toEqual(['local-chat', 'local-embed', 'local-image']);
    expect(new Set(c.models.map((m) => m.upstream.provider))).toEqual(
      new Set(['local', 'azure-openai', 'gemini', 'bedrock', 'openai-compatible']),
    );
    for (const m of c.models.filter((x) => ['azure-openai', 'gemini', 'bedrock'].includes(x.upstream.provider))) {
      expect(m.upstream.credentialEnv).toMatch(/^[A-Z][A-Z0-9_]*$/);
    }
    expect(c.models.filter((m) => m.kind === 'embedding').every((m) => m.dimensions)).toBe(true);
  });

  it('reports each model at start, and what will fail, naming variables and never their values', () => {
    const c = loadCatalogFile(EXAMPLE);
    const none = catalogReport(c, {});
    expect(none.models).toContainEqual({ id: 'local-chat', provider: 'local', status: 'Active', from: 'built-in' });
    expect(none.models).toContainEqual({ id: 'gemini-2.5-flash', provider: 'gemini', status: 'Active', from: 'file' });
    expect(none.warnings.join('\n')).toMatch(/gpt-4o: its credential variable AZURE_OPENAI_API_KEY is not set/);
    // Each deployment of a routed model is checked, named model@deployment.
    expect(none.warnings.join('\n')).toMatch(/gpt-4o-routed@westeurope: its credential variable AZURE_OPENAI_WEST_KEY is not set/);
    const env = {
      AZURE_OPENAI_API_KEY: 'azure-secret-1',
      AZURE_OPENAI_EAST_KEY: 'azure-secret-5',
      AZURE_OPENAI_WEST_KEY: 'azure-secret-6',
      GEMINI_API_KEY: 'gemini-secret-2',
      BEDROCK_CREDENTIALS: 'AKIA:secret-3',
      VLLM_API_KEY: 'vllm-secret-4',
    };
    const set = catalogReport(c, env);
    expect(set.warnings).toEqual([]);
    expect(JSON.stringify(set)).not.toMatch(/secret-\d/);
  });
});
