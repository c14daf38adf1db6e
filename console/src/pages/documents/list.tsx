import { useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { Empty, Loading } from '../../ui/states';
import { PageNumbers } from '../../ui/page-numbers';
import { when } from '../realms/common';
import { Facets, FilterFields, filterOf, isFiltered, NO_FILTERS, TitleField, withValue, type Filters } from './filters';
import { documentHref, SEARCH, sizeOf, type DocumentRow, type SearchAnswer } from './graph';
import { Refusal } from './refusal';

const PAGE_SIZE = 20;
const SORTS = {
  'UPDATED_AT DESC': 'Newest first',
  'UPDATED_AT ASC': 'Oldest first',
  'TITLE ASC': 'Title A–Z',
  'TITLE DESC': 'Title Z–A',
} as const;
type Sort = keyof typeof SORTS;

/**
 * The tenant's documents: the graph's BASIC search with no words (a filtered listing), sorted,
 * 20 a page, with the filters of the v2 search and the match set's term counts to narrow it.
 * `generation` changes when a document was added or deleted elsewhere on the page: the list reads again.
 */
export function DocumentList({ generation }: { generation: number }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [sort, setSort] = useState<Sort>('UPDATED_AT DESC');
  const [page, setPage] = useState(1);
  const [more, setMore] = useState(false);
  const [sortBy, order] = sort.split(' ');
  const [result, reread] = useQuery<SearchAnswer>({
    query: SEARCH,
    variables: { query: '', mode: 'BASIC', filter: filterOf(filters), pageNo: page, pageSize: PAGE_SIZE, sortBy, order },
  });
  useEffect(() => {
    if (generation) reread({ requestPolicy: 'network-only' });
  }, [generation, reread]);
  const apply = (f: Filters) => {
    if (isFiltered({ ...f, title: '' })) setMore(true);
    setDraft(f);
    setFilters(f);
    setPage(1);
  };
  const found = result.data?.search;
  return (
    <>
      <form
        className="inline-form doc-list-form"
        aria-label="Filter documents"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
        onReset={(e) => {
          e.preventDefault();
          apply(NO_FILTERS);
        }}
      >
        <TitleField value={draft} onChange={setDraft} />
        <label className="field">
          Sort
          <select
            value={sort}
            onChange={(e) => {
              setSort(e.target.value as Sort);
              setPage(1);
            }}
          >
            {Object.entries(SORTS).map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <details className="doc-more-filters" open={more} onToggle={(e) => setMore(e.currentTarget.open)}>
          <summary>More filters{isFiltered({ ...draft, title: '' }) ? ' (some set)' : ''}</summary>
          <FilterFields value={draft} onChange={setDraft} title={false} />
        </details>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button type="reset">Clear</button>
        </div>
      </form>
      {found && <Facets aggregations={found.aggregations} onPick={(field, value) => apply(withValue(filters, field, value))} />}
      {result.error ? (
        <Refusal error={result.error} />
      ) : !found ? (
        <Loading what="documents" />
      ) : (
        <>
          {/* What is shown while the next answer loads is the last one: the summary says so until it comes. */}
          <p role="status" className="state">
            {result.fetching
              ? 'Loading documents…'
              : found.totalCount > 0 &&
                `${found.totalCount} document${found.totalCount === 1 ? '' : 's'}${isFiltered(filters) ? ' match' : ''}; page ${found.pageNo} of ${Math.ceil(found.totalCount / PAGE_SIZE)}`}
          </p>
          {found.totalCount === 0 ? (
            !result.fetching && <Empty>{isFiltered(filters) ? 'No document matches these filters.' : 'No document yet: upload one.'}</Empty>
          ) : (
            <div aria-busy={result.fetching}>
              <DocumentTable rows={found.hits.map((h) => h.document)} />
              <PageNumbers page={page} total={found.totalCount} pageSize={PAGE_SIZE} onPage={setPage} label="Pages of documents" />
            </div>
          )}
        </>
      )}
    </>
  );
}

function DocumentTable({ rows }: { rows: DocumentRow[] }) {
  return (
    <div className="table-wrap">
      <table className="doc-table">
        <caption className="visually-hidden">Documents</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">File</th>
            <th scope="col">Type</th>
            <th scope="col">Tags</th>
            <th scope="col">Size</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id}>
              <td data-label="Title">
                <a href={documentHref(d.id)}>{d.title}</a>
                {d.isPrivate && <span className="hint"> (private)</span>}
              </td>
              <td data-label="File">{d.fileName ?? '—'}</td>
              <td data-label="Type">
                {d.objectType}
                {d.fileExtension ? ` · ${d.fileExtension}` : ''}
              </td>
              <td data-label="Tags">{d.tags.join(', ') || '—'}</td>
              <td data-label="Size">{sizeOf(d.size)}</td>
              <td data-label="Updated">
                <time dateTime={d.updatedAt}>{when(d.updatedAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
