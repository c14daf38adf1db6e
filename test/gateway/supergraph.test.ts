import { composeSupergraph, readSupergraph, SUBGRAPHS } from '../../gateway/supergraph';

describe('the supergraph', () => {
  it('composes from schema/*.graphql without errors', () => {
    const sdl = composeSupergraph();
    expect(sdl).toContain('@join__graph(name: "token"');
    expect(sdl).toContain('type Realm');
    expect(SUBGRAPHS).toContain('token');
  });

  it('is committed fresh: schema/supergraph.graphql equals a new composition (run npm run compose)', () => {
    expect(readSupergraph()).toBe(composeSupergraph());
  });
});
