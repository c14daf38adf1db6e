import { useCallback, useEffect, useRef, useState } from 'react';
import { useQuery } from 'urql';
import { Failure, Loading } from '../../ui/states';
import { ErrorsTable, ReplicasTable, ServicesTable, when } from './tables';
import type { Status } from './types';
import { FOR_PLATFORM, FOR_REALM } from '../../operations/overview';

/** How often the page asks again while automatic refresh is on. */
export const REFRESH_MS = 10_000;
/** Errors shown at first, and added by "Show more" (the graph gives at most 200). */
const ERRORS_PAGE = 20;
const MAX_ERRORS = 200;

/** Each thing whose state a person is told about when it changes: services, replicas, errors. */
function states(s: Status): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of s.services) {
    out.set(`${v.title} health`, v.healthy ? 'healthy' : `unhealthy (${v.health})`);
    out.set(`${v.title}`, v.ready ? 'ready' : `not ready (${v.reason ?? 'no reason given'})`);
  }
  for (const r of s.replicas ?? []) out.set(`Replica ${r.host} pid ${r.pid}`, r.live ? 'live' : 'gone');
  return out;
}

/** What changed between two answers, in words; empty when nothing did. */
export function changes(before: Status, after: Status): string {
  const was = states(before);
  const said = [...states(after)].filter(([k, v]) => was.has(k) && was.get(k) !== v).map(([k, v]) => `${k}: ${v}.`);
  const added = (after.recentErrors?.total ?? 0) - (before.recentErrors?.total ?? 0);
  if (added > 0) said.push(`${added} new server error${added === 1 ? '' : 's'}.`);
  const joined = (after.replicas ?? []).length - (before.replicas ?? []).length;
  if (joined > 0) said.push(`${joined} new replica${joined === 1 ? '' : 's'}.`);
  return said.join(' ');
}

/**
 * The platform's state (`platformStatus`): its version and services, and for platform
 * administrators its replicas and recent errors. Asked again every 10 s unless paused, and on
 * Refresh; a new answer replaces the old in place (no focus moves), and what changed state is said
 * once in a live region.
 */
export function PlatformStatus({ platform }: { platform: boolean }) {
  const [first, setFirst] = useState(ERRORS_PAGE);
  const [auto, setAuto] = useState(true);
  const [result, reexecute] = useQuery<{ platformStatus: Status }>({
    query: platform ? FOR_PLATFORM : FOR_REALM,
    variables: platform ? { first } : undefined,
  });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  useEffect(() => {
    if (!auto) return;
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [auto, refresh]);

  const fresh = result.data?.platformStatus;
  const [checkedAt, setCheckedAt] = useState<Date>();
  const [said, setSaid] = useState('');
  const last = useRef<Status>();
  useEffect(() => {
    if (!fresh) return;
    setCheckedAt(new Date());
    if (last.current) {
      const now = changes(last.current, fresh);
      if (now) setSaid(now);
    }
    last.current = fresh;
  }, [fresh]);
  // While another answer comes (more errors asked for), the last one stays on the page.
  const status = fresh ?? last.current;

  return (
    <section aria-labelledby="platform-title" className="overview-platform">
      <h2 id="platform-title">Platform</h2>
      <div className="overview-toolbar">
        <button
          type="button"
          // aria-disabled, not disabled: the button keeps the keyboard's focus while the answer comes.
          aria-disabled={result.fetching}
          onClick={() => !result.fetching && refresh()}
        >
          Refresh
        </button>
        <label className="overview-auto">
          <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.target.checked)} />
          Refresh every {REFRESH_MS / 1000} s
        </label>
        <span className="overview-checked">
          {checkedAt && (
            <>
              Checked at <time dateTime={checkedAt.toISOString()}>{checkedAt.toLocaleTimeString()}</time>
            </>
          )}
          {result.fetching && status ? ' · checking…' : ''}
        </span>
      </div>
      <p className="overview-changes" role="status" aria-live="polite">
        {said}
      </p>
      {!status && result.fetching && <Loading what="the platform's state" />}
      {result.error && <Failure error={result.error} />}
      {status && (
        <>
          <dl className="facts">
            <dt>Version</dt>
            <dd>{status.version}</dd>
            <dt>Serving this page since</dt>
            <dd>{when(status.startedAt)}</dd>
          </dl>
          <ServicesTable services={status.services} />
          {status.replicas && <ReplicasTable replicas={status.replicas} />}
          {status.recentErrors && (
            <ErrorsTable
              errors={status.recentErrors}
              onMore={first < MAX_ERRORS ? () => setFirst(Math.min(MAX_ERRORS, first + ERRORS_PAGE)) : undefined}
              loading={result.fetching}
            />
          )}
        </>
      )}
    </section>
  );
}
