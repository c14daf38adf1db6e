import { passageFromWire, type PassageWire } from '../../../clients/search/wire';
import { callOptions, httpClient } from '../../../clients/shared/http';
import type { Retrieval } from '../../../core/chat/ports';
import { MAX_PAGE_SIZE } from '../../../core/search/inputs';
import type { SearchService } from '../../../core/search/service';
import type { SearchInstance } from '../../search';

// The chat proxy's adapters to the search service (its peer): in process when the search service
// runs here, over its REST paths when it runs elsewhere.

const CHUNK_SEARCH = '/cl/search/api/v2/chunk/search';

/**
 * The search service at `baseUrl` over its REST path, the v2 chunk search: hybrid passages,
 * re-ranked, as the in-process adapter asks for them. The call carries the user's own bearer
 * token, so tenancy and roles are the search service's to apply; its refusals come back as the
 * same platform errors (clients/shared/http-errors.ts). Reads are retried on a short 429/503.
 */
export function restRetrieval(opts: { baseUrl: string; timeoutMs?: number }): Retrieval {
  const http = httpClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs ?? 30_000 });
  return {
    async passages(req, call) {
      // The service pages at most 100 and at least 1: a limit of 0 still asks (so a caller without
      // `search:read` is refused as in process) and keeps nothing.
      const pageSize = Math.max(1, Math.min(req.limit, MAX_PAGE_SIZE));
      const r = await http.request<{ result?: PassageWire[] }>('POST', CHUNK_SEARCH, {
        ...callOptions(call),
        query: { query_string: req.query, page_size: pageSize, page_no: 1 },
        json: req.fileNames ? { file_names: req.fileNames } : {},
      });
      return (r.result ?? []).slice(0, Math.max(0, req.limit)).map(passageFromWire);
    },
  };
}

/** The search service of this process, as the user. */
export const inProcessRetrieval = (search: SearchService): Retrieval => ({
  async passages(req, call) {
    const page = await search.passages(
      {
        query: req.query,
        filters: req.fileNames ? { fileNames: req.fileNames } : {},
        offset: 0,
        limit: req.limit,
        mode: 'hybrid',
        rerank: true,
      },
      call,
    );
    return page.passages;
  },
});

/** The search service of this process when it runs here, else the one at `baseUrl` (SEARCH_URL, or PUBLIC_URL). */
export const searchPeer = (search: SearchInstance | undefined, baseUrl: string): Retrieval =>
  search ? inProcessRetrieval(search.service) : restRetrieval({ baseUrl });
