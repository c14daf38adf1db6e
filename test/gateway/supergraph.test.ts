import { composeSupergraph, graphSources, readSupergraph, supergraphOf } from '../../gateway/supergraph';
import { SERVICES } from '../../services/registry';

const registered = () => graphSources(SERVICES.filter((m) => m.subgraph).map((m) => ({ name: m.name, sdl: m.subgraph!.sdl() })));

describe('the supergraph', () => {
  it("composes from the registered services' SDL without errors", () => {
    const sdl = composeSupergraph(registered());
    expect(sdl).toContain('@join__graph(name: "token"');
    expect(sdl).toContain('type Realm');
  });

  it('is committed fresh: schema/supergraph.graphql equals a new composition (run npm run compose)', () => {
    expect(readSupergraph()).toBe(composeSupergraph(registered()));
  });

  it('is read from the committed file at start when composed from the same SDL, and composed anew when any differs', () => {
    expect(supergraphOf(registered())).toBe(readSupergraph());
    const changed = registered().map((s) => (s.name === 'search' ? { ...s, sdl: `${s.sdl}\n"""An addition."""\nscalar Extra\n` } : s));
    const composed = supergraphOf(changed);
    expect(composed).not.toBe(readSupergraph());
    expect(composed).toContain('scalar Extra');
    expect(composed.split('\n')[0]).toMatch(/^# Composed by `platform compose` from subgraphs with SHA-256 [0-9a-f]{64}$/);
    expect(composed.split('\n')[0]).not.toBe(readSupergraph().split('\n')[0]);
  });
});
