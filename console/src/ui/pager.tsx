/** Previous / next over an admin list's cursors (`nextCursor`), keeping the cursors seen for going back. */
export function Pager({
  cursors,
  next,
  onPage,
  total,
  shown,
}: {
  cursors: (string | null)[];
  next: string | null;
  onPage: (cursors: (string | null)[]) => void;
  total: number;
  shown: number;
}) {
  const page = cursors.length;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(cursors.slice(0, -1))}>
        Previous
      </button>
      <span>
        Page {page} · {shown} of {total}
      </span>
      <button type="button" disabled={!next} onClick={() => next && onPage([...cursors, next])}>
        Next
      </button>
    </nav>
  );
}
