import { searchClient } from '../../../clients/search';
import type { Caller } from '../../../core/shared/auth/caller';
import { createTokenVerifier, issuerBaseFor } from '../../../core/shared/auth/verifier';
import type { Ctx } from '../../../core/shared/context';
import { PlatformError } from '../../../core/shared/errors';
import type { SearchService } from '../../../core/search/service';
import type { SearchPage, StoredObject } from '../../../core/search/types';
import type { SearchInstance } from '../../../services/search';
import { searchFixture, type SearchFixture } from '../../e2e/search/fixture';

/**
 * The search service in process and its REST client in front of the same running server must
 * agree: the same answers for the same calls, the same errors for the same refusals.
 */
let f: SearchFixture;
let local: SearchService;
let remote: SearchService;
let a: Ctx<Caller>;
let b: Ctx<Caller>;
let readOnly: Ctx<Caller>;

const asCaller = async (bearer: string): Promise<Ctx<Caller>> => {
  const verifier = createTokenVerifier({
    issuerBase: issuerBaseFor(f.platform.config.PUBLIC_URL),
    keys: f.platform.instances.token.keySource!,
  });
  return { caller: await verifier.authenticate(bearer) };
};

beforeAll(async () => {
  f = await searchFixture();
  local = (f.platform.instances.search as unknown as SearchInstance).service;
  remote = searchClient({ baseUrl: f.url });
  [a, b, readOnly] = await Promise.all([asCaller(f.a), asCaller(f.b), asCaller(f.readOnly)]);
  for (const content of [
    'Glaciers retreat as the climate warms.',
    'Penguins keep their eggs warm in winter.',
    'Volcanoes erupt when magma pressure builds.',
  ]) {
    await local.createObject({ content, tags: ['nature'], title: content.split(' ')[0] }, a);
  }
}, 60_000);
afterAll(async () => {
  await f?.stop();
});

/** What both faces can say of an object: not its tenant or passage count (REST does not tell them), nor its id and times (two objects). */
const shape = ({ id: _i, tenant: _t, chunkCount: _c, createdAt: _ca, updatedAt: _u, systemMetadata: _s, ...rest }: StoredObject) => rest;
const ids = (p: SearchPage) => p.hits.map((h) => [h.object.id, h.score.toFixed(6), h.snippet]);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'no failure',
    (e: unknown) => (e instanceof PlatformError ? [e.kind, e.message] : e),
  );

describe('the search service contract (in process and REST client agree)', () => {
  it.each(['fulltext', 'semantic', 'hybrid', 'basic'] as const)(
    '%s search: the same hits, scores, snippets and aggregations',
    async (mode) => {
      const req = { mode, query: mode === 'basic' ? 'Glac' : 'glaciers climate', filters: { tags: ['nature'] }, offset: 0, limit: 10 };
      const [x, y] = await Promise.all([local.search(req, a), remote.search(req, a)]);
      expect(ids(y)).toEqual(ids(x));
      expect(y.total).toBe(x.total);
      expect(y.aggregations).toEqual(x.aggregations);
      expect(x.total).toBeGreaterThan(0);
    },
  );

  it('passages: the same, within object ids', async () => {
    const all = await local.search({ mode: 'fulltext', query: 'penguins', filters: {}, offset: 0, limit: 5 }, a);
    const req = { query: 'eggs warm', filters: { objectIds: [all.hits[0].object.id] }, offset: 0, limit: 5 };
    expect(await remote.passages(req, a)).toEqual(await local.passages(req, a));
  });

  it('creates, reads, updates and deletes objects alike', async () => {
    const input = { content: 'Tides follow the moon.', title: 'Tides', tags: ['sea'], customMetadata: { team: 'x' } };
    const [x, y] = [await local.createObject(input, a), await remote.createObject(input, a)];
    expect(shape(y)).toEqual(shape(x));
    expect(shape(await remote.getObject({ id: x.id }, a))).toEqual(shape(await local.getObject({ id: x.id }, a)));
    const patch = { tags: ['sea', 'moon'], isPrivate: true };
    expect(shape(await remote.updateObject({ id: y.id, patch }, a))).toEqual(shape(await local.updateObject({ id: x.id, patch }, a)));
    await remote.deleteObject({ id: y.id }, a);
    await local.deleteObject({ id: x.id }, a);
    expect(await failure(remote.getObject({ id: y.id }, a))).toEqual(await failure(local.getObject({ id: x.id }, a)));
  });

  it('uploads a file whose text becomes searchable', async () => {
    const file = { name: 'notes.txt', bytes: new TextEncoder().encode('Auroras glow over the northern sky.'), contentType: 'text/plain' };
    const o = await remote.uploadObject({ file, metadata: { tags: ['sky'] } }, a);
    expect(o).toMatchObject({ fileName: 'notes.txt', tags: ['sky'] });
    const page = await local.search({ mode: 'fulltext', query: 'auroras', filters: {}, offset: 0, limit: 5 }, a);
    expect(page.hits.map((h) => h.object.id)).toEqual([o.id]);
  });

  it("an object's passages: the same pages and cursors, the same refusals", async () => {
    const content = Array.from({ length: 70 }, (_, i) => `Remark ${i}: lichens grow slowly on bare rock.`).join(' ');
    const o = await local.createObject({ content }, a);
    const pages = async (service: SearchService) => {
      const out = [];
      let after: string | undefined;
      do {
        const page = await service.objectPassages({ id: o.id, limit: 2, after }, a);
        out.push(page);
        after = page.nextCursor ?? undefined;
      } while (after);
      return out;
    };
    const [x, y] = [await pages(local), await pages(remote)];
    expect(y).toEqual(x);
    expect(x.length).toBeGreaterThan(1);
    expect(x.flatMap((p) => p.items.map((i) => i.chunkIndex))).toEqual(Array.from({ length: x[0].total }, (_, i) => i));
    expect(await remote.objectPassages({ id: o.id }, a)).toEqual(await local.objectPassages({ id: o.id }, a));
    for (const [input, ctx] of [
      [{ id: o.id }, b],
      [{ id: o.id, after: 'nope' }, a],
      [{ id: 'no-such-object' }, a],
    ] as const) {
      expect(await failure(remote.objectPassages(input, ctx))).toEqual(await failure(local.objectPassages(input, ctx)));
    }
  });

  it('refuses alike: another tenant sees nothing, a reader may not write, no caller is not authenticated', async () => {
    const mine = await local.createObject({ content: 'Private to tenant a.' }, a);
    expect(await failure(remote.getObject({ id: mine.id }, b))).toEqual(await failure(local.getObject({ id: mine.id }, b)));
    expect(await remote.getObjects({ ids: [mine.id, 'nope'] }, b)).toEqual(await local.getObjects({ ids: [mine.id, 'nope'] }, b));
    expect(await failure(remote.createObject({ content: 'x' }, readOnly))).toEqual(
      await failure(local.createObject({ content: 'x' }, readOnly)),
    );
    const none = await failure(remote.search({ mode: 'fulltext', query: 'x', filters: {}, offset: 0, limit: 5 }, {} as Ctx<Caller>));
    expect(none).toEqual(
      await failure(local.search({ mode: 'fulltext', query: 'x', filters: {}, offset: 0, limit: 5 }, {} as Ctx<Caller>)),
    );
  });
});
