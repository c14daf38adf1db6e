import { useQuery } from 'urql';
import type { PageProps } from '../registry';
import { Failure, Loading } from '../../ui/states';
import { PlatformStatus } from './platform';
import './overview.css';
import { VIEWER, COUNTS } from '../../operations/overview';

interface Viewer {
  viewer: { username: string; tenantId: string; roles: string[]; realm: { name: string } | null } | null;
}
interface Counts {
  adminRealms: { total: number };
  adminModelKeys: { total: number };
  adminDocuments: { total: number };
}

/**
 * Who is signed in; for administrators what the platform holds and how it is (platform.tsx): its
 * version, its services' health and readiness, and for platform administrators its replicas and
 * recent errors.
 */
export function Overview({ person, admin, platform }: PageProps) {
  const [viewer] = useQuery<Viewer>({ query: VIEWER });
  const [counts] = useQuery<Counts>({ query: COUNTS, pause: !admin });
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      {viewer.fetching ? (
        <Loading what="who you are" />
      ) : viewer.error ? (
        <Failure error={viewer.error} />
      ) : (
        <dl className="facts">
          <dt>Signed in as</dt>
          <dd>{viewer.data?.viewer?.username ?? person.username}</dd>
          <dt>Realm</dt>
          <dd>{viewer.data?.viewer?.realm?.name ?? person.realm}</dd>
          <dt>Tenant</dt>
          <dd>{viewer.data?.viewer?.tenantId}</dd>
          <dt>Roles</dt>
          <dd>{viewer.data?.viewer?.roles.join(', ') || 'none'}</dd>
        </dl>
      )}
      {admin &&
        (counts.fetching ? (
          <Loading what="the platform's counts" />
        ) : counts.error ? (
          <Failure error={counts.error} />
        ) : (
          <ul className="cards" aria-label="What the platform holds">
            <li>
              Realms <strong>{counts.data?.adminRealms.total}</strong>
            </li>
            <li>
              Model keys <strong>{counts.data?.adminModelKeys.total}</strong>
            </li>
            <li>
              Tenants with documents <strong>{counts.data?.adminDocuments.total}</strong>
            </li>
          </ul>
        ))}
      {admin && <PlatformStatus platform={platform} />}
    </section>
  );
}
