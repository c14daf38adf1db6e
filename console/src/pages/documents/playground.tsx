import { useId, useState } from 'react';
import { useQuery } from 'urql';
import { Empty, Loading } from '../../ui/states';
import { PageNumbers } from '../../ui/page-numbers';
import { FilterFields, filterOf, isFiltered, NO_FILTERS, type Filters } from './filters';
import { documentHref, SEARCH, type Hit, type SearchAnswer } from './graph';
import { Fragment } from './highlight';
import { Refusal } from './refusal';

type Mode = 'SEMANTIC' | 'FULLTEXT' | 'BASIC' | 'HYBRID';
const MODES: Record<Mode, string> = {
  HYBRID: 'Hybrid: full text and vectors fused, optionally re-ranked',
  SEMANTIC: 'Semantic: vectors (cosine similarity)',
  FULLTEXT: 'Full text: BM25 over passages and titles',
  BASIC: 'Basic: words in titles, file names and tags',
};
/** HYBRID pages hold at least 20 (as REST v2); one size for every mode keeps paging the same. */
const PAGE_SIZE = 20;

interface Ask {
  query: string;
  mode: Mode;
  exact: boolean;
  anywhere: boolean;
  reRanked: boolean;
  highlight: boolean;
  minScore: string;
  filters: Filters;
}
const START: Ask = {
  query: '',
  mode: 'HYBRID',
  exact: false,
  anywhere: false,
  reRanked: true,
  highlight: true,
  minScore: '',
  filters: NO_FILTERS,
};

/**
 * The search playground: a query in every mode of the graph's `search` (BASIC with exact and
 * anywhere, HYBRID with re-ranking), the filters, a minimum score and highlights; each result with
 * its score as a number and a bar, its snippet and the highlighted fragments.
 */
export function SearchPlayground() {
  const [draft, setDraft] = useState<Ask>(START);
  const [asked, setAsked] = useState<Ask>();
  const [page, setPage] = useState(1);
  const set = (change: Partial<Ask>) => setDraft((d) => ({ ...d, ...change }));
  const minHelp = useId();
  const [result] = useQuery<SearchAnswer>({
    query: SEARCH,
    pause: !asked,
    variables: asked && {
      query: asked.query,
      mode: asked.mode,
      filter: filterOf(asked.filters),
      pageNo: page,
      pageSize: PAGE_SIZE,
      minScore: asked.minScore === '' ? undefined : Number(asked.minScore),
      reRanked: asked.mode === 'HYBRID' ? asked.reRanked : undefined,
      exact: asked.mode === 'BASIC' ? asked.exact : undefined,
      anywhere: asked.mode === 'BASIC' ? asked.anywhere : undefined,
      highlight: asked.highlight,
    },
  });
  const found = result.data?.search;
  return (
    <>
      <form
        className="inline-form doc-search-form"
        aria-label="Search playground"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked({ ...draft, query: draft.query.trim() });
          setPage(1);
        }}
      >
        <label className="field wide">
          Query
          <input
            type="search"
            value={draft.query}
            maxLength={2000}
            required={draft.mode !== 'BASIC'}
            autoComplete="off"
            onChange={(e) => set({ query: e.target.value })}
          />
        </label>
        <label className="field">
          Mode
          <select value={draft.mode} onChange={(e) => set({ mode: e.target.value as Mode })}>
            {Object.entries(MODES).map(([m, label]) => (
              <option key={m} value={m}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Minimum score (0 to 1)
          <input
            type="number"
            min={0}
            max={1}
            step={0.05}
            value={draft.minScore}
            aria-describedby={minHelp}
            onChange={(e) => set({ minScore: e.target.value })}
          />
          <span id={minHelp} className="hint">
            Empty: no minimum
          </span>
        </label>
        <div className="doc-checks">
          {draft.mode === 'BASIC' && (
            <>
              <label className="check">
                <input type="checkbox" checked={draft.exact} onChange={(e) => set({ exact: e.target.checked })} /> Exact phrase
              </label>
              <label className="check">
                <input type="checkbox" checked={draft.anywhere} onChange={(e) => set({ anywhere: e.target.checked })} /> Content too
                (anywhere)
              </label>
            </>
          )}
          {draft.mode === 'HYBRID' && (
            <label className="check">
              <input type="checkbox" checked={draft.reRanked} onChange={(e) => set({ reRanked: e.target.checked })} /> Re-ranked
            </label>
          )}
          <label className="check">
            <input type="checkbox" checked={draft.highlight} onChange={(e) => set({ highlight: e.target.checked })} /> Highlights
          </label>
        </div>
        <details className="doc-search-filters">
          <summary>Filters{isFiltered(draft.filters) ? ' (some set)' : ''}</summary>
          <FilterFields value={draft.filters} onChange={(filters) => set({ filters })} />
        </details>
        <div className="actions">
          <button type="submit">Search</button>
        </div>
      </form>
      {!asked ? (
        <Empty>Ask something to see what each mode finds.</Empty>
      ) : result.error ? (
        <Refusal error={result.error} />
      ) : !found ? (
        <Loading what="results" />
      ) : (
        <>
          {/* What is shown while the next answer loads is the last one: the summary says so until it comes. */}
          <p role="status" className="state">
            {result.fetching
              ? 'Searching…'
              : found.totalCount > 0 && `${found.totalCount} result${found.totalCount === 1 ? '' : 's'} (${asked.mode.toLowerCase()})`}
          </p>
          {found.totalCount === 0 ? (
            !result.fetching && <Empty>Nothing found{asked.minScore ? ' at this minimum score' : ''}.</Empty>
          ) : (
            <div aria-busy={result.fetching}>
              <ol className="doc-hits" start={(found.pageNo - 1) * PAGE_SIZE + 1}>
                {found.hits.map((h) => (
                  <HitView key={h.document.id} hit={h} />
                ))}
              </ol>
              <PageNumbers page={page} total={found.totalCount} pageSize={PAGE_SIZE} onPage={setPage} label="Pages of results" />
            </div>
          )}
        </>
      )}
    </>
  );
}

function HitView({ hit }: { hit: Hit }) {
  const d = hit.document;
  return (
    <li className="doc-hit">
      <div className="doc-hit-head">
        <a href={documentHref(d.id)} className="doc-hit-title">
          {d.title}
        </a>
        <span className="doc-score">
          <span className="visually-hidden">Score </span>
          <span className="doc-score-number">{hit.score.toFixed(3)}</span>
          <meter min={0} max={1} value={hit.score} aria-label={`Score of ${d.title}`} />
        </span>
      </div>
      {d.fileName && d.fileName !== d.title && <p className="hint">{d.fileName}</p>}
      <p className="doc-snippet">{hit.snippet}</p>
      {hit.highlights && hit.highlights.length > 0 && (
        <ul className="doc-highlights" aria-label={`Highlights in ${d.title}`}>
          {hit.highlights.map((h, i) => (
            <li key={i}>
              <span className="doc-highlight-field">{h.field}:</span> <Fragment html={h.fragment} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
