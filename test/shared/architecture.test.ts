import { join } from 'node:path';
import { SERVICES } from '../../services/registry';
import { circles, importEdges, sourceFiles, type ImportEdge } from './import-graph';

/**
 * docs/architecture.md, checked on the imports: layers import only downward, a shared folder names
 * no service, a service reaches only the services it declares it uses, and no files import each
 * other in a circle.
 */
const ROOT = join(__dirname, '..', '..');

/** Each layer and the lower layers it may import (besides itself). bench/ and test/ may import anything. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  clients: ['core'],
  edge: ['core'],
  rest: ['edge', 'core'],
  subgraphs: ['edge', 'core'],
  gateway: ['edge', 'core'],
  services: ['rest', 'subgraphs', 'clients', 'edge', 'core'],
  bin: ['services', 'gateway', 'rest', 'subgraphs', 'clients', 'edge', 'core'],
};
const LAYERS = Object.keys(MAY_IMPORT);
const NAMES = SERVICES.map((m) => m.name);
/** The composition root: the one file that names every service. */
const REGISTRY = 'services/registry.ts';

const layerOf = (file: string) => file.split('/')[0];
/** The service whose folder holds the file (`rest/search/v2.ts` → search), if any. */
const serviceOf = (file: string) => {
  const second = file.split('/')[1];
  return second && NAMES.includes(second) ? second : undefined;
};
const usesOf = (name: string) => [name, ...(SERVICES.find((m) => m.name === name)?.uses ?? [])];

const files = sourceFiles(ROOT, LAYERS);
const edges = importEdges(ROOT, files);
const show = (e: ImportEdge) => `${e.from} -> ${e.to}`;

describe('the architecture, as docs/architecture.md draws it', () => {
  it('reads the whole tree', () => {
    expect(files.length).toBeGreaterThan(250);
    expect(edges.length).toBeGreaterThan(800);
    expect(NAMES).toEqual(['token', 'search', 'models', 'chat']);
  });

  it('imports only downward: each layer reaches itself and the layers below it', () => {
    const up = edges.filter((e) => {
      const from = layerOf(e.from);
      const to = layerOf(e.to);
      return from !== to && !MAY_IMPORT[from].includes(to);
    });
    expect(up.map(show)).toEqual([]);
  });

  it('keeps rest/ and subgraphs/ apart, and the gateway out of both', () => {
    const crossing = edges.filter((e) => {
      const pair = `${layerOf(e.from)}>${layerOf(e.to)}`;
      return ['rest>subgraphs', 'subgraphs>rest', 'gateway>rest', 'gateway>subgraphs'].includes(pair);
    });
    expect(crossing.map(show)).toEqual([]);
  });

  it("names no service in a shared file: only a service's own folders and the registry import them", () => {
    const naming = edges.filter((e) => e.from !== REGISTRY && !serviceOf(e.from) && serviceOf(e.to));
    expect(naming.map(show)).toEqual([]);
  });

  it('lets a service reach another only when its module declares it uses it', () => {
    const reaching = edges.filter((e) => {
      const from = serviceOf(e.from);
      const to = serviceOf(e.to);
      return from && to && !usesOf(from).includes(to);
    });
    expect(reaching.map(show)).toEqual([]);
  });

  it('has no import circle between files', () => {
    expect(circles(edges)).toEqual([]);
  });
});
