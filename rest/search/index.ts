import type { SearchService } from '../../core/search/service';
import type { RestService } from '../shared/routes';
import { define, searchErrorBody } from './common';
import { searchServiceDocs } from './docs';
import { searchObjectRoutes } from './objects';
import { searchV1Routes } from './v1';
import { searchV2Routes } from './v2';
import { Msg } from '../shared/schemas';
import { SEARCH_PREFIX } from './prefix';

export { SEARCH_PREFIX };

/** The search service's REST face: v1 and v2 side by side, the object endpoints, health. */
export function searchRest(search: SearchService, opts: { maxUploadBytes: number }): RestService {
  const health = (version: 'v1' | 'v2') =>
    define({
      method: 'get',
      path: `/${version}/healthz`,
      summary: 'Health',
      tags: ['health'],
      public: true,
      responses: { 200: { description: 'Service is up', schema: Msg } },
      handle: async () => {
        await search.health({});
        return { msg: 'ok' };
      },
    });
  return {
    title: 'Search service',
    version: '2.0.0',
    prefix: SEARCH_PREFIX,
    errorBody: searchErrorBody,
    audience: 'search',
    schemas: { Msg },
    docs: searchServiceDocs,
    routes: [
      health('v1'),
      health('v2'),
      ...searchV1Routes(search),
      ...searchV2Routes(search),
      ...searchObjectRoutes(search, opts.maxUploadBytes),
    ],
  };
}
