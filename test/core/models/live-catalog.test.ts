import { loadCatalogFile } from '../../../core/models/catalog/catalog';
import type { CatalogStore } from '../../../core/models/catalog/catalog-store';
import { effectiveCatalog } from '../../../core/models/catalog/effective';
import { liveCatalog, type LiveCatalog } from '../../../core/models/catalog/live-catalog';
import { sqliteCatalogStore } from '../../../core/models/sqlite';
import { twoConnections } from './models-db';

const file = loadCatalogFile();
const alias = (id: string) => ({ ...file.models[0], id });
const row = (id: string, more: object = {}) => ({
  id,
  entry: alias(id),
  active: true,
  version: 1,
  updatedAt: 5,
  updatedBy: 'root',
  ...more,
});

describe('the effective catalog', () => {
  it("is the file's without rows: every model version 1, source file, active", () => {
    const c = effectiveCatalog(file, []);
    expect(c.models).toEqual(file.models);
    expect([...c.byId.values()].map((s) => [s.model.id, s.source, s.active, s.version])).toEqual([
      ['local-chat', 'file', true, 1],
      ['local-embed', 'file', true, 1],
      ['local-image', 'file', true, 1],
    ]);
  });

  it("adds the rows' own models after the file's, replaces a file model by a row's entry, deactivates either source", () => {
    const replaced = { ...file.models[1], contextLength: 100 };
    const c = effectiveCatalog(file, [
      row('zeta'),
      row('alpha', { active: false, version: 3 }),
      row('local-embed', { entry: replaced, version: 2 }),
      row('local-image', { entry: null, active: false, version: 2 }),
    ]);
    expect(c.models.map((m) => [m.id, m.status])).toEqual([
      ['local-chat', 'Active'],
      ['local-embed', 'Active'],
      ['local-image', 'Deactivated'],
      ['alpha', 'Deactivated'],
      ['zeta', 'Active'],
    ]);
    expect(c.byId.get('local-embed')).toMatchObject({ source: 'admin', version: 2, model: { contextLength: 100 } });
    expect(c.byId.get('local-image')).toMatchObject({ source: 'file', active: false, version: 2 });
    expect(c.sources.get('zeta')).toBe('admin');
    expect(c.generation).toBe(1 + 3 + 2 + 2);
  });

  it('leaves out a stored row that the checks refuse (or whose entry names another id), and says so', () => {
    const told: string[] = [];
    const c = effectiveCatalog(
      file,
      [row('bad', { entry: { id: 'bad', group: 'Z' } }), row('other', { entry: alias('elsewhere') })],
      (id) => told.push(id),
    );
    expect(c.models.map((m) => m.id)).toEqual(['local-chat', 'local-embed', 'local-image']);
    expect(told).toEqual(['bad', 'other']);
  });
});

describe('the live catalog of two workers', () => {
  let opened: ReturnType<typeof twoConnections<CatalogStore>>;
  const lives: LiveCatalog[] = [];
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    opened = twoConnections((db) => sqliteCatalogStore(db));
  });
  afterEach(async () => {
    lives.splice(0).forEach((l) => l.close());
    jest.useRealTimers();
    await opened.close();
  });
  const open = (store: CatalogStore) => {
    const l = liveCatalog({ file, store, pollMs: 500 });
    lives.push(l);
    return l;
  };

  it("serves a write at once where it was made, and in the other worker at its next poll (500 ms); the core's array is the same object, updated", async () => {
    const [a, b] = [open(opened.one), open(opened.two)];
    await Promise.all([a.ready, b.ready]);
    const models = b.models;
    await a.write({ id: 'team-chat', entry: alias('team-chat'), active: true, at: 1, by: 'root' }, 'any', 1);
    expect(a.current().byId.get('team-chat')?.active).toBe(true);
    expect(b.current().byId.has('team-chat')).toBe(false);
    await jest.advanceTimersByTimeAsync(500);
    expect(b.current().byId.get('team-chat')).toMatchObject({ source: 'admin', version: 1 });
    expect(b.models).toBe(models);
    expect(models.map((m) => m.id)).toContain('team-chat');
    expect(b.sources.get('team-chat')).toBe('admin');

    await b.write({ id: 'local-chat', active: false, at: 2, by: 'root' }, 'any', 2);
    await jest.advanceTimersByTimeAsync(500);
    expect(a.current().byId.get('local-chat')).toMatchObject({
      active: false,
      source: 'file',
      version: 2,
      model: { status: 'Deactivated' },
    });
  });

  it('reads only the change counter while nothing changed; a store that fails leaves the last catalog serving and is told once', async () => {
    const calls = { list: 0, generation: 0 };
    let down = false;
    const errors: string[] = [];
    const store: CatalogStore = {
      list: async () => {
        calls.list++;
        if (down) throw new Error('down');
        return opened.one.list();
      },
      generation: async () => {
        calls.generation++;
        if (down) throw new Error('down');
        return opened.one.generation();
      },
      write: (...a) => opened.one.write(...a),
    };
    const l = liveCatalog({ file, store, pollMs: 500, onError: (e) => errors.push(e.message) });
    lives.push(l);
    await l.ready;
    await jest.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual({ list: 1, generation: 4 });
    await opened.two.write({ id: 'x-chat', entry: alias('x-chat'), active: true, at: 1, by: 'root' }, 'any', 1);
    await jest.advanceTimersByTimeAsync(500);
    expect(calls.list).toBe(2);
    down = true;
    await jest.advanceTimersByTimeAsync(1500);
    expect(errors).toEqual(['down']);
    expect(l.current().byId.has('x-chat')).toBe(true);
  });
});
