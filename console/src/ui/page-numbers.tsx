/** The page numbers shown around `page` of `pages`: the first, the last, and two either side, with gaps as null. */
function numbersAround(page: number, pages: number): (number | null)[] {
  const out: (number | null)[] = [];
  for (let n = 1; n <= pages; n++) {
    if (n === 1 || n === pages || Math.abs(n - page) <= 2) out.push(n);
    else if (out.at(-1) !== null) out.push(null);
  }
  return out;
}

/**
 * Previous, the page numbers and Next over an offset-paged list (`pageNo` from 1): what the graph's
 * `search` pages by. `label` names the navigation (two pagers on one page need two names).
 */
export function PageNumbers({
  page,
  total,
  pageSize,
  onPage,
  label,
}: {
  page: number;
  total: number;
  pageSize: number;
  onPage: (page: number) => void;
  label: string;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return null;
  return (
    <nav className="pager page-numbers" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <ul>
        {numbersAround(page, pages).map((n, i) =>
          n === null ? (
            <li key={`gap-${i}`} aria-hidden="true">
              …
            </li>
          ) : (
            <li key={n}>
              <button type="button" aria-current={n === page ? 'page' : undefined} aria-label={`Page ${n}`} onClick={() => onPage(n)}>
                {n}
              </button>
            </li>
          ),
        )}
      </ul>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
