import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import type { PageProps } from './registry';
import { Empty, Failure, Loading } from '../ui/states';
import { EVENTS, REALMS } from '../operations/audit';

/** The event types docs/admin.md lists, and their prefixes (a type ending in `.` matches every type it starts). */
const TYPES = [
  'realm.',
  'realm.create',
  'realm.update',
  'realm.default',
  'realm.key-rotate',
  'client.',
  'client.create',
  'client.update',
  'client.secret',
  'client.auth-failure',
  'user.',
  'user.create',
  'user.update',
  'user.password',
  'user.unlock',
  'user.logout',
  'session.end',
  'key.',
  'key.create',
  'key.revoke',
  'key.rotate',
  'key.refused',
  'model.',
  'model.put',
  'model.deactivate',
  'documents.reindex',
  'login.',
  'login.success',
  'login.failure',
  'login.lockout',
  'token.revoke',
  'logout',
];

interface AuditEvent {
  id: string;
  time: string;
  type: string;
  outcome: string;
  actor: { kind: string; realm: string | null; id: string | null; name: string | null };
  realm: string | null;
  tenant: string | null;
  target: { kind: string; id: string } | null;
  address: string | null;
  service: string;
  reason: string | null;
  details: Record<string, unknown> | null;
}
interface EventPage {
  auditEvents: { items: AuditEvent[]; nextCursor: string | null };
}

/** What the filter form asks for; empty strings are "any". */
interface Filters {
  from: string;
  to: string;
  actor: string;
  type: string;
  outcome: string;
  realm: string;
}
const NONE: Filters = { from: '', to: '', actor: '', type: '', outcome: '', realm: '' };

/** A `datetime-local` value (the browser's time zone) as ISO 8601, or undefined. */
function instant(local: string): string | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * The audit trail (docs/admin.md): administrative changes and security events, newest first,
 * filtered by time, actor, type, outcome and (platform administrators) realm; a realm
 * administrator reads its own realm's events only, as the graph answers.
 */
export function Audit({ platform }: PageProps) {
  const [filters, setFilters] = useState<Filters>(NONE);
  const [realms] = useQuery<{ adminRealms: { items: { realm: string; name: string }[] } }>({ query: REALMS, pause: !platform });
  const realmItems = realms.data?.adminRealms.items;
  const names = useMemo(() => new Map((realmItems ?? []).map((r) => [r.realm, r.name])), [realmItems]);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <FilterForm platform={platform} realms={realmItems ?? []} onApply={setFilters} />
      {/* A new key starts the list afresh at the newest page whenever the filters change. */}
      <Events key={JSON.stringify(filters)} filters={filters} realmName={(id) => names.get(id) ?? id} showRealm={platform} />
    </section>
  );
}

function FilterForm({
  platform,
  realms,
  onApply,
}: {
  platform: boolean;
  realms: { realm: string; name: string }[];
  onApply: (f: Filters) => void;
}) {
  return (
    <form
      className="inline-form audit-filters"
      aria-label="Filter audit events"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const field = (name: string) => {
          const v = form.get(name);
          return typeof v === 'string' ? v.trim() : '';
        };
        onApply({
          from: field('from'),
          to: field('to'),
          actor: field('actor'),
          type: field('type'),
          outcome: field('outcome'),
          realm: field('realm'),
        });
      }}
      onReset={() => onApply(NONE)}
    >
      <label className="field">
        From
        <input name="from" type="datetime-local" />
      </label>
      <label className="field">
        To
        <input name="to" type="datetime-local" />
      </label>
      <label className="field">
        Actor (name or id)
        <input name="actor" autoComplete="off" maxLength={256} />
      </label>
      <label className="field">
        Type (exact, or a prefix ending in “.”)
        <input name="type" list="audit-types" autoComplete="off" maxLength={128} />
      </label>
      <datalist id="audit-types">
        {TYPES.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <label className="field">
        Outcome
        <select name="outcome">
          <option value="">Any</option>
          <option value="success">success</option>
          <option value="failure">failure</option>
        </select>
      </label>
      {platform && (
        <label className="field">
          Realm
          <select name="realm">
            <option value="">All realms</option>
            {realms.map((r) => (
              <option key={r.realm} value={r.realm}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="audit-actions">
        <button type="submit">Apply filters</button>
        <button type="reset">Clear</button>
      </div>
    </form>
  );
}

function Events({ filters, realmName, showRealm }: { filters: Filters; realmName: (id: string) => string; showRealm: boolean }) {
  // Pages already loaded, and the cursor of the one being read ("Load more" appends the next page).
  const [earlier, setEarlier] = useState<AuditEvent[]>([]);
  const [after, setAfter] = useState<string | null>(null);
  const [result] = useQuery<EventPage>({
    query: EVENTS,
    variables: {
      from: instant(filters.from),
      to: instant(filters.to),
      actor: filters.actor || undefined,
      realm: filters.realm || undefined,
      type: filters.type || undefined,
      outcome: filters.outcome || undefined,
      after: after ?? undefined,
    },
  });
  const page = result.data?.auditEvents;
  const seen = new Set(earlier.map((e) => e.id));
  const shown = [...earlier, ...(page?.items ?? []).filter((e) => !seen.has(e.id))];
  const next = page?.nextCursor ?? null;
  const filtered = Object.values(filters).some(Boolean);

  if (result.error && shown.length === 0) return <Failure error={result.error} />;
  if (result.fetching && shown.length === 0) return <Loading what="audit events" />;
  if (shown.length === 0) return <Empty>No audit event{filtered ? ' matches these filters' : ' yet'}.</Empty>;
  return (
    <>
      <div className="table-wrap">
        <table className="audit-table">
          <caption className="visually-hidden">Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Type</th>
              <th scope="col">Outcome</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              <th scope="col">Address</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <Row key={e.id} event={e} realmName={realmName} showRealm={showRealm} />
            ))}
          </tbody>
        </table>
      </div>
      <div className="pager audit-pager">
        <span role="status">
          {shown.length} event{shown.length === 1 ? '' : 's'} shown{result.fetching ? ', loading more…' : next ? '' : ', no more'}
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
            Load more
          </button>
        )}
      </div>
      {result.error && <Failure error={result.error} />}
    </>
  );
}

const actorOf = (a: AuditEvent['actor']) => `${a.name ?? a.id ?? '—'} (${a.kind})`;

function Row({ event: e, realmName, showRealm }: { event: AuditEvent; realmName: (id: string) => string; showRealm: boolean }) {
  const when = new Date(e.time);
  const local = when.toLocaleString();
  return (
    <tr>
      <td>
        <time dateTime={when.toISOString()}>{local}</time>
      </td>
      <td>{e.type}</td>
      <td className={`audit-outcome audit-${e.outcome === 'failure' ? 'failure' : 'success'}`}>{e.outcome}</td>
      <td>{actorOf(e.actor)}</td>
      <td>{e.target ? `${e.target.kind} ${e.target.id}` : '—'}</td>
      <td>{e.address ?? '—'}</td>
      <td>
        <details className="audit-details">
          <summary>
            Details
            <span className="visually-hidden">
              {' '}
              of {e.type} at {local}
            </span>
          </summary>
          <dl className="facts">
            {e.reason && (
              <>
                <dt>Reason</dt>
                <dd>{e.reason}</dd>
              </>
            )}
            {showRealm && e.realm && (
              <>
                <dt>Realm</dt>
                <dd>{realmName(e.realm)}</dd>
              </>
            )}
            {e.tenant && (
              <>
                <dt>Tenant</dt>
                <dd>{e.tenant}</dd>
              </>
            )}
            <dt>Service</dt>
            <dd>{e.service}</dd>
            <dt>Event id</dt>
            <dd>{e.id}</dd>
          </dl>
          {e.details && Object.keys(e.details).length > 0 && (
            <pre className="audit-json" tabIndex={0} aria-label="Details as JSON">
              {JSON.stringify(e.details, null, 2)}
            </pre>
          )}
        </details>
      </td>
    </tr>
  );
}
