import { composeSupergraph, readSupergraph } from '../../gateway/supergraph';
import { SERVICES } from '../../services/registry';

const registered = () => SERVICES.filter((m) => m.subgraph).map((m) => ({ name: m.name, sdl: m.subgraph!.sdl() }));

describe('the supergraph', () => {
  it('composes from the registered services\' SDL without errors', () => {
    const sdl = composeSupergraph(registered());
    expect(sdl).toContain('@join__graph(name: "token"');
    expect(sdl).toContain('type Realm');
  });

  it('is committed fresh: schema/supergraph.graphql equals a new composition (run npm run compose)', () => {
    expect(readSupergraph()).toBe(composeSupergraph(registered()));
  });
});
