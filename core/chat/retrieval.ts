import type { Caller } from '../shared/auth/caller';
import type { Ctx } from '../shared/context';
import { UpstreamTimeout } from '../shared/errors';
import type { Passage } from '../search/types';
import type { Retrieval } from './ports';

export interface RetrievalLimits {
  /** Milliseconds the semantic search may take. */
  searchMs: number;
  /** Milliseconds the uploaded files' text extraction may take. */
  extractMs: number;
  /** Passages from the tenant's documents. */
  sources: number;
  /** Passages from the uploaded files. */
  filePassages: number;
}

export interface Retrieved {
  /** The semantic search's passages, best first. */
  search: Passage[];
  /** The uploaded files' passages, best first. */
  files: Passage[];
}

/** Runs `task` with its own deadline and the caller's signal; the deadline aborts it and fails as a 504 naming it. */
export async function limited<T>(
  what: string,
  ms: number,
  parent: AbortSignal | undefined,
  task: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const signal = parent ? AbortSignal.any([parent, own.signal]) : own.signal;
  let timer: NodeJS.Timeout | undefined;
  let leave: (() => void) | undefined;
  // Ends at the deadline, or as soon as the caller leaves, whether or not the task heeds its signal.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new UpstreamTimeout(`${what} did not finish within ${ms} ms`);
      own.abort(err);
      reject(err);
    }, ms);
    leave = () => reject(parent?.reason);
    if (parent?.aborted) leave();
    else parent?.addEventListener('abort', leave, { once: true });
  });
  try {
    return await Promise.race([task(signal), deadline]);
  } finally {
    clearTimeout(timer);
    if (leave) parent?.removeEventListener('abort', leave);
  }
}

/**
 * Spec behaviour 2: the semantic search over the tenant's documents and the text extraction of
 * the files the user uploaded run concurrently, each within its own time limit; the first failure
 * aborts the other. Both act as the user.
 */
export async function retrieve(
  retrieval: Retrieval,
  limits: RetrievalLimits,
  req: { searchText: string; files: readonly string[] },
  call: Ctx<Caller>,
): Promise<Retrieved> {
  const both = new AbortController();
  const signal = call.signal ? AbortSignal.any([call.signal, both.signal]) : both.signal;
  const search = limited('the semantic search', limits.searchMs, signal, (s) =>
    retrieval.passages({ query: searchTextOf(req.searchText), limit: limits.sources }, { ...call, signal: s }),
  );
  const files =
    req.files.length === 0
      ? Promise.resolve([])
      : limited("the uploaded files' text extraction", limits.extractMs, signal, (s) =>
          retrieval.passages(
            { query: searchTextOf(req.searchText), limit: limits.filePassages, fileNames: [...req.files] },
            { ...call, signal: s },
          ),
        );
  try {
    const [found, extracted] = await Promise.all([search, files]);
    return { search: found, files: extracted };
  } catch (err) {
    both.abort(err);
    // The other task's rejection is the same abort; it has nothing more to say.
    search.catch(() => undefined);
    files.catch(() => undefined);
    throw err;
  }
}

/** The search service takes queries of up to 1,000 characters. */
const searchTextOf = (text: string) => text.slice(0, 1000);
