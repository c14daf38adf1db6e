import { Fragment, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Confirm } from '../../ui/actions';
import { Empty, Loading } from '../../ui/states';
import { when } from '../realms/common';
import { DELETE, DOCUMENT, PASSAGES, sizeOf, type DocumentFull, type PassagePage } from './graph';
import { Refusal } from './refusal';

/**
 * One document (`#/documents/<id>`): its metadata, its passages in order (20 at a time, "Load more"),
 * and Delete after a confirmation. A document the person may not see (deleted, another tenant's,
 * someone else's private one) is the graph's null: "no such document".
 */
export function DocumentView({ id, onDeleted }: { id: string; onDeleted: (title: string) => void }) {
  const [result] = useQuery<{ document: DocumentFull | null }>({ query: DOCUMENT, variables: { id } });
  const [removal, remove] = useMutation<{ deleteDocument: boolean | null }>(DELETE);
  const d = result.data?.document;
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening a document is a navigation: the focus goes to its title, as a new page's would.
  useEffect(() => heading.current?.focus(), [d?.id]);
  return (
    <article aria-labelledby="doc-title" className="doc-view">
      <p>
        <a href="#/documents">Back to the documents</a>
      </p>
      {result.error ? (
        <Refusal error={result.error} />
      ) : !result.data ? (
        <Loading what="the document" />
      ) : !d ? (
        <>
          <h2 id="doc-title">No such document</h2>
          <Empty>It was deleted, or it is not one you may see.</Empty>
        </>
      ) : (
        <>
          <div className="detail-head">
            <h2 id="doc-title" tabIndex={-1} ref={heading}>
              {d.title}
            </h2>
            <Confirm
              label="Delete"
              question={`Delete “${d.title}”?`}
              yes="Yes, delete it"
              disabled={removal.fetching}
              onYes={() =>
                void remove({ id: d.id }).then((r) => {
                  if (!r.error && r.data?.deleteDocument) onDeleted(d.title);
                })
              }
            />
          </div>
          {removal.fetching && <Loading what="the deletion" />}
          {removal.error && <Refusal error={removal.error} />}
          <Facts d={d} />
          <h3>Passages</h3>
          <Passages id={d.id} />
        </>
      )}
    </article>
  );
}

function Facts({ d }: { d: DocumentFull }) {
  const rows: [string, string][] = [
    ['File name', d.fileName ?? '—'],
    ['Object type', d.objectType],
    ['File extension', d.fileExtension ?? '—'],
    ['Size', sizeOf(d.size)],
    ['Tags', d.tags.join(', ') || '—'],
    ['Folders', d.folders.join(', ') || '—'],
    ['Repos', d.repos.join(', ') || '—'],
    ['Private', d.isPrivate ? 'yes (only its creator sees it)' : 'no'],
    ['Created by', d.createdBy],
    ['Created', when(d.createdAt)],
    ['Updated', when(d.updatedAt)],
    ['Passages', String(d.chunkCount)],
    ['Id', d.id],
  ];
  if (d.extUserIdRef) rows.push(['External user', d.extUserIdRef]);
  if (Object.keys(d.kvp).length) rows.push(['Key-value pairs', JSON.stringify(d.kvp)]);
  return (
    <dl className="facts">
      {rows.map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

function Passages({ id }: { id: string }) {
  const [earlier, setEarlier] = useState<PassagePage['items']>([]);
  const [after, setAfter] = useState<string | null>(null);
  const [result] = useQuery<{ document: { id: string; passages: PassagePage } | null }>({
    query: PASSAGES,
    variables: { id, after: after ?? undefined },
  });
  const page = result.data?.document?.passages;
  const seen = new Set(earlier.map((p) => p.chunkId));
  const shown = [...earlier, ...(page?.items ?? []).filter((p) => !seen.has(p.chunkId))];
  const next = page?.nextCursor ?? null;
  if (result.error && !shown.length) return <Refusal error={result.error} />;
  if (!page && !shown.length) return <Loading what="passages" />;
  if (!shown.length) return <Empty>No passage: the document has no text.</Empty>;
  return (
    <>
      <ol className="doc-passages">
        {shown.map((p) => (
          <li key={p.chunkId} value={p.chunkIndex + 1}>
            <p className="doc-passage">{p.text}</p>
          </li>
        ))}
      </ol>
      <div className="pager">
        <span role="status">
          {shown.length} of {page?.total ?? shown.length} passages shown{result.fetching ? ', loading more…' : ''}
        </span>
        {(next || result.fetching) && (
          <button
            type="button"
            // aria-disabled, not disabled: the button keeps the keyboard's focus while the next page loads.
            aria-disabled={result.fetching}
            onClick={() => {
              if (result.fetching || !next) return;
              setEarlier(shown);
              setAfter(next);
            }}
          >
            Load more passages
          </button>
        )}
      </div>
      {result.error && <Refusal error={result.error} />}
    </>
  );
}
