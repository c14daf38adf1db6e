import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Confirm } from '../../ui/actions';
import { Pager } from '../../ui/pager';
import { Empty, Loading } from '../../ui/states';
import { when, type Outcome, OutcomeNote } from '../realms/common';
import { sizeOf } from './graph';
import { Refusal } from './refusal';
import { TENANTS, REINDEX } from '../../operations/documents';

interface TenantRow {
  tenantId: string;
  documents: number;
  privateDocuments: number;
  deletedDocuments: number;
  passages: number;
  bytes: number;
  repos: number;
  folders: number;
  lastUpdatedAt: string | null;
}

const passages = (n: number) => `${n} passage${n === 1 ? '' : 's'}`;

const SORTS: Record<string, string> = {
  tenantId: 'Tenant',
  '-documents': 'Most documents',
  '-bytes': 'Most bytes',
  '-lastUpdatedAt': 'Last updated',
};

/**
 * What each tenant an administrator administers holds (the admin API's view: a platform administrator
 * every tenant with documents, a realm administrator its own), 25 a page; Reindex re-embeds one
 * tenant's passages after a confirmation. `generation` changes when a document was added or deleted
 * on the page: the counts are read again.
 */
export function Tenants({ generation }: { generation: number }) {
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState({ q: '', sort: 'tenantId' });
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [result, reread] = useQuery<{ adminDocuments: { items: TenantRow[]; nextCursor: string | null; total: number } }>({
    query: TENANTS,
    variables: { after: cursors.at(-1) ?? undefined, sort: asked.sort, q: asked.q || undefined },
  });
  useEffect(() => {
    if (generation) reread({ requestPolicy: 'network-only' });
  }, [generation, reread]);
  const [reindexing, reindex] = useMutation<{ adminReindexTenant: { tenantId: string; passages: number; embedder: string } }>(REINDEX);
  const [outcome, setOutcome] = useState<Outcome>();
  const page = result.data?.adminDocuments;
  return (
    <>
      <form
        className="inline-form"
        aria-label="Find tenants"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked({ ...asked, q: q.trim() });
          setCursors([null]);
        }}
      >
        <label className="field">
          Tenant id contains
          <input value={q} maxLength={128} autoComplete="off" onChange={(e) => setQ(e.target.value)} />
        </label>
        <label className="field">
          Sort
          <select
            value={asked.sort}
            onChange={(e) => {
              setAsked({ ...asked, sort: e.target.value });
              setCursors([null]);
            }}
          >
            {Object.entries(SORTS).map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <div className="actions">
          <button type="submit">Find</button>
        </div>
      </form>
      {reindexing.fetching && <Loading what="the re-embedding" />}
      <OutcomeNote outcome={outcome} onReload={() => reread({ requestPolicy: 'network-only' })} />
      {result.error ? (
        <Refusal error={result.error} />
      ) : !page ? (
        <Loading what="tenants" />
      ) : page.items.length === 0 ? (
        <Empty>{asked.q ? 'No tenant matches.' : 'No tenant with documents.'}</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table className="doc-table tenants-table">
              <caption className="visually-hidden">Tenants and their documents</caption>
              <thead>
                <tr>
                  <th scope="col">Tenant</th>
                  <th scope="col">Documents</th>
                  <th scope="col">Deleted</th>
                  <th scope="col">Passages</th>
                  <th scope="col">Size</th>
                  <th scope="col">Repos / folders</th>
                  <th scope="col">Last update</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((t) => (
                  <tr key={t.tenantId}>
                    <th scope="row" data-label="Tenant">
                      {t.tenantId}
                    </th>
                    <td data-label="Documents">
                      {t.documents}
                      {t.privateDocuments ? ` (${t.privateDocuments} private)` : ''}
                    </td>
                    <td data-label="Deleted">{t.deletedDocuments}</td>
                    <td data-label="Passages">{t.passages}</td>
                    <td data-label="Size">{sizeOf(t.bytes)}</td>
                    <td data-label="Repos / folders">
                      {t.repos} / {t.folders}
                    </td>
                    <td data-label="Last update">
                      {t.lastUpdatedAt ? <time dateTime={t.lastUpdatedAt}>{when(t.lastUpdatedAt)}</time> : '—'}
                    </td>
                    <td data-label="Actions">
                      <Confirm
                        label={
                          <>
                            Reindex<span className="visually-hidden"> {t.tenantId}</span>
                          </>
                        }
                        question={`Re-embed every passage of ${t.tenantId}?`}
                        yes="Yes, reindex"
                        disabled={reindexing.fetching}
                        onYes={() =>
                          void reindex({ tenant: t.tenantId }).then((r) => {
                            const done = r.data?.adminReindexTenant;
                            setOutcome(
                              r.error
                                ? { error: r.error }
                                : {
                                    ok: `Re-embedded ${passages(done?.passages ?? 0)} of ${t.tenantId} with ${done?.embedder ?? 'the embedder'}.`,
                                  },
                            );
                          })
                        }
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager cursors={cursors} next={page.nextCursor} onPage={setCursors} total={page.total} shown={page.items.length} />
        </>
      )}
    </>
  );
}
