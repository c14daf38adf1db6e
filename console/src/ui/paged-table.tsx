import { useState, type ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { Pager } from './pager';
import { Empty, Failure, Loading } from './states';

/** One page of an admin list as the graph answers it (`items`, `nextCursor`, `total`). */
export interface GraphPage<T> {
  items: T[];
  nextCursor: string | null;
  total: number;
}

/** The cursors of a paged list (the first page's is null) and the one to ask with. */
export function useCursors() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return { cursors, setCursors, after: cursors[cursors.length - 1] ?? undefined, restart: () => setCursors([null]) };
}

/** A search box over a list: typing starts the list again from its first page. */
export function SearchField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <label className="field">
      {label}
      <input type="search" value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/**
 * A page of an admin list as a table: loading (until the first answer), the graph's error, the
 * empty text, or the rows with Previous / Next. The caption is for screen readers.
 */
export function PagedTable<T>({
  result,
  page,
  what,
  empty,
  caption,
  head,
  row,
  cursors,
  onPage,
}: {
  result: { fetching: boolean; error?: CombinedError };
  page: GraphPage<T> | undefined;
  /** What is loading: "users". */
  what: string;
  empty: ReactNode;
  caption: string;
  /** The column headers' names. */
  head: (string | false)[];
  row: (item: T) => ReactNode;
  cursors: (string | null)[];
  onPage: (cursors: (string | null)[]) => void;
}) {
  if (result.fetching && !page) return <Loading what={what} />;
  if (result.error) return <Failure error={result.error} />;
  if (!page || page.items.length === 0) return <Empty>{empty}</Empty>;
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {head.map(
                (h) =>
                  h !== false && (
                    <th scope="col" key={h}>
                      {h}
                    </th>
                  ),
              )}
            </tr>
          </thead>
          <tbody>{page.items.map(row)}</tbody>
        </table>
      </div>
      <Pager cursors={cursors} next={page.nextCursor} total={page.total} shown={page.items.length} onPage={onPage} />
    </>
  );
}
