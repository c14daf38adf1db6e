import { useId, useState } from 'react';
import { useQuery } from 'urql';
import type { PageProps } from './registry';
import { Pager } from '../ui/pager';
import { Empty, Failure, Loading } from '../ui/states';
import { CreateKey } from './keys/create-key';
import { useTenants, type KeyRow, type NewKey } from './keys/key-data';
import { KeyTable, type KeyOutcome } from './keys/key-table';
import { TenantOptions } from './keys/tenant-options';
import { KeyUsage } from './keys/key-usage';
import { ShownOnce } from './keys/shown-once';
import { KEYS } from '../operations/keys';

/**
 * Model keys (docs/admin.md, "Model keys and usage"): the keys an administrator may see (a realm
 * administrator: its tenants'), filtered by tenant, state and name; a form to create one with its
 * limits, budget, models and expiry; the new key (created or rotated) shown once with a Copy
 * button; revoking and rotating after a confirmation; each key's calls over the last 30 days.
 */
export function Keys({ person, platform }: PageProps) {
  const { tenants, fetching } = useTenants(person);
  const [tenant, setTenant] = useState('');
  const [revoked, setRevoked] = useState<'live' | 'revoked' | 'all'>('live');
  const [q, setQ] = useState('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [fresh, setFresh] = useState<{ key: NewKey; how: 'created' | 'rotated' }>();
  const [usageOf, setUsageOf] = useState<KeyRow>();
  const [outcome, setOutcome] = useState<KeyOutcome>();
  const [keys, reload] = useQuery<{ adminModelKeys: { items: KeyRow[]; nextCursor: string | null; total: number } }>({
    query: KEYS,
    variables: {
      tenant: tenant.trim() || undefined,
      revoked: revoked === 'all' ? undefined : revoked === 'revoked',
      q: q || undefined,
      after: cursors[cursors.length - 1] ?? undefined,
    },
  });
  const refresh = () => reload({ requestPolicy: 'network-only' });
  const filter =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setCursors([null]);
    };
  const page = keys.data?.adminModelKeys;
  const listId = useId();

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Model keys</h1>
      {fresh && <ShownOnce key={`once-${fresh.key.id}`} fresh={fresh.key} how={fresh.how} onDone={() => setFresh(undefined)} />}
      {fetching ? (
        <Loading what="tenants" />
      ) : (
        <CreateKey
          tenants={tenants}
          platform={platform}
          person={person}
          onCreated={(key) => {
            setFresh({ key, how: 'created' });
            refresh();
          }}
        />
      )}

      <h2>Keys</h2>
      <div className="keys-filters" role="search" aria-label="Filter the keys">
        {platform ? (
          <label className="field">
            Tenant
            <input
              type="search"
              list={`${listId}-tenants`}
              value={tenant}
              placeholder="every tenant"
              onChange={(e) => filter(setTenant)(e.target.value)}
              autoComplete="off"
            />
            <datalist id={`${listId}-tenants`}>
              <TenantOptions tenants={tenants} />
            </datalist>
          </label>
        ) : (
          <label className="field">
            Tenant
            <select value={tenant} onChange={(e) => filter(setTenant)(e.target.value)}>
              <option value="">Every tenant of yours</option>
              <TenantOptions tenants={tenants} />
            </select>
          </label>
        )}
        <label className="field">
          State
          <select value={revoked} onChange={(e) => filter(setRevoked)(e.target.value as 'live' | 'revoked' | 'all')}>
            <option value="live">Not revoked</option>
            <option value="revoked">Revoked</option>
            <option value="all">All</option>
          </select>
        </label>
        <label className="field">
          Name contains
          <input type="search" value={q} onChange={(e) => filter(setQ)(e.target.value)} autoComplete="off" />
        </label>
      </div>

      {outcome?.error && <Failure error={outcome.error} />}
      {outcome?.ok && <p role="status">{outcome.ok}</p>}
      {keys.fetching && !page ? (
        <Loading what="model keys" />
      ) : keys.error ? (
        <Failure error={keys.error} />
      ) : !page || page.items.length === 0 ? (
        <Empty>No key{q || tenant || revoked !== 'live' ? ' matches these filters' : ' yet: create one above'}.</Empty>
      ) : (
        <>
          <KeyTable
            keys={page.items}
            onChanged={(key) => {
              if (key) setFresh({ key, how: 'rotated' });
              refresh();
            }}
            onUsage={setUsageOf}
            onOutcome={setOutcome}
          />
          <Pager cursors={cursors} next={page.nextCursor} total={page.total} shown={page.items.length} onPage={setCursors} />
        </>
      )}
      {usageOf && <KeyUsage key={`usage-${usageOf.id}`} which={usageOf} onClose={() => setUsageOf(undefined)} />}
    </section>
  );
}
