import { Empty } from '../../ui/states';
import type { Replica, ServerError, ServiceStatus } from './types';

/** An instant in the browser's time zone, as a <time>. */
export const when = (iso: string) => {
  const d = new Date(iso);
  return <time dateTime={d.toISOString()}>{d.toLocaleString()}</time>;
};

/** A state in words and colour (never colour alone). */
const State = ({ good, children }: { good: boolean; children: React.ReactNode }) => (
  <span className={good ? 'overview-good' : 'overview-bad'}>{children}</span>
);

/** Each service as the process serving the graph reaches it. On a phone each row is a card (overview.css). */
export function ServicesTable({ services }: { services: ServiceStatus[] }) {
  return (
    <>
      <h3>Services</h3>
      <div className="table-wrap">
        <table className="overview-table">
          <caption className="visually-hidden">Services: where each runs, its health and its readiness</caption>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Where</th>
              <th scope="col">Health</th>
              <th scope="col">Ready</th>
            </tr>
          </thead>
          <tbody>
            {services.map((s) => (
              <tr key={s.name}>
                <th scope="row" data-label="Service">
                  <span>
                    {s.title} <span className="overview-muted">({s.name})</span>
                  </span>
                </th>
                <td data-label="Where">{s.location === 'REMOTE' ? `Remote${s.url ? `: ${s.url}` : ''}` : 'In process'}</td>
                <td data-label="Health">
                  <State good={s.healthy}>{s.healthy ? 'Healthy' : `Unhealthy: ${s.health}`}</State>
                </td>
                <td data-label="Ready">
                  <State good={s.ready}>{s.ready ? 'Ready' : `Not ready: ${s.reason ?? 'no reason given'}`}</State>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Every process seen serving the platform within a day, live ones first. */
export function ReplicasTable({ replicas }: { replicas: Replica[] }) {
  const live = replicas.filter((r) => r.live).length;
  return (
    <>
      <h3>Replicas</h3>
      <p className="overview-muted">
        {live} live, {replicas.length - live} gone (not seen for three heartbeats) in the last day.
      </p>
      <div className="table-wrap">
        <table className="overview-table">
          <caption className="visually-hidden">Replicas: every process serving the platform</caption>
          <thead>
            <tr>
              <th scope="col">Host</th>
              <th scope="col">Process</th>
              <th scope="col">Version</th>
              <th scope="col">Started</th>
              <th scope="col">Last seen</th>
              <th scope="col">State</th>
              <th scope="col">Serves</th>
            </tr>
          </thead>
          <tbody>
            {replicas.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Host">
                  {r.host}
                </th>
                <td data-label="Process">
                  pid {r.pid}
                  {r.worker > 0 ? `, worker ${r.worker}` : ''}
                  {r.current ? ' (this page)' : ''}
                </td>
                <td data-label="Version">{r.version}</td>
                <td data-label="Started">{when(r.startedAt)}</td>
                <td data-label="Last seen">{when(r.lastSeenAt)}</td>
                <td data-label="State">
                  <State good={r.live}>{r.live ? 'Live' : 'Gone'}</State>
                </td>
                <td data-label="Serves">{r.serves.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The replicas' recent server errors, newest first, a page at a time. */
export function ErrorsTable({
  errors,
  onMore,
  loading,
}: {
  errors: { total: number; items: ServerError[] };
  onMore?: () => void;
  loading: boolean;
}) {
  const { total, items } = errors;
  return (
    <>
      <h3>Recent errors</h3>
      {items.length === 0 ? (
        <Empty>No server errors: no replica has recorded one (each keeps its last 50 since it started).</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table className="overview-table">
              <caption className="visually-hidden">Recent server errors of every replica, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Service</th>
                  <th scope="col">Where</th>
                  <th scope="col">Code</th>
                  <th scope="col">Message</th>
                  <th scope="col">Request id</th>
                  <th scope="col">Replica</th>
                </tr>
              </thead>
              <tbody>
                {items.map((e, i) => (
                  <tr key={`${e.replica}-${e.at}-${i}`}>
                    <td data-label="Time">{when(e.at)}</td>
                    <td data-label="Service">{e.service}</td>
                    <td data-label="Where">{e.where}</td>
                    <td data-label="Code">{e.code}</td>
                    <td data-label="Message">{e.message}</td>
                    <td data-label="Request id">{e.requestId ?? '—'}</td>
                    <td data-label="Replica">
                      {e.host}, pid {e.pid}
                      {e.worker > 0 ? `, worker ${e.worker}` : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <span>
              {items.length} of {total} shown
            </span>
            {items.length < total && onMore && (
              <button type="button" aria-disabled={loading} onClick={() => !loading && onMore()}>
                Show more
              </button>
            )}
          </div>
        </>
      )}
    </>
  );
}
