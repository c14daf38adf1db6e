import type { Caller } from '../../../core/shared/auth/caller';
import { graphql } from 'graphql';
import pino from 'pino';
import { openSearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import type { SearchService } from '../../../core/search/service';
import { buildSubgraph } from '../../../edge/graphql/subgraph';
import { readSchemaFile } from '../../../edge/graphql/sdl';
import { searchResolvers } from '../../../subgraphs/search';
import { testClock } from '../../shared/helpers';
import { fixedCallOf, graphContext } from '../../shared/helpers';

const caller = (tenantId: string): Caller => ({
  realm: 'r',
  subject: `${tenantId}-user`,
  tenantId,
  roles: ['search:read', 'search:write'],
  scopes: [],
  clientId: 'c',
  username: 'u',
  sessionId: 's',
  tokenId: 't',
  expiresAt: 0,
  audience: ['search'],
  bearer: 'x',
});

describe('Document entities of the search subgraph', () => {
  it('are fetched in one batch per request, however many references an operation holds', async () => {
    const core = openSearchCore({ stores: sqliteSearchStores(':memory:'), clock: testClock() });
    const ctx = (tenant: string) => ({ caller: caller(tenant) });
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three'])
      ids.push((await core.service.createObject({ content: `text ${title}`, title }, ctx('a'))).id);
    const foreign = (await core.service.createObject({ content: 'x', title: 'foreign' }, ctx('b'))).id;

    const batches: (readonly string[])[] = [];
    const counting: SearchService = {
      ...core.service,
      getObjects: (input, call) => (batches.push(input.ids), core.service.getObjects(input, call)),
    };
    const { schema } = buildSubgraph(
      'search',
      readSchemaFile('search/search.graphql'),
      searchResolvers(counting, fixedCallOf(caller('a')), { maxUploadBytes: 1024 }),
      pino({ level: 'silent' }),
    );
    const representations = [...ids, foreign, ids[0]].map((id) => ({ __typename: 'Document', id }));
    const result = await graphql({
      schema,
      contextValue: graphContext(),
      variableValues: { r: representations },
      source: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Document { id title } } }',
    });
    expect(result.errors).toBeUndefined();
    expect(result.data!._entities).toEqual([
      { id: ids[0], title: 'one' },
      { id: ids[1], title: 'two' },
      { id: ids[2], title: 'three' },
      null,
      { id: ids[0], title: 'one' },
    ]);
    expect(batches).toEqual([[...ids, foreign]]);
    await core.close();
  });
});
