import { useQuery } from 'urql';
import type { PageProps } from '../registry';
import { TENANTS } from '../../operations/keys';

/** What the Model keys page's parts share: a key's fields and row, its state, and the tenants a key may be given. */

export interface KeyRow {
  id: string;
  prefix: string;
  name: string;
  tenantId: string;
  models: string[] | null;
  requestsPerMinute: number | null;
  tokenBudget: number | null;
  /** Its money budget (docs/spend.md). */
  budget: { usd: number; period: 'daily' | 'monthly'; warnAt: number } | null;
  /** What it spent in the budget's current period (listed keys with a budget). */
  spend?: { spentUsd: number; reservedUsd: number; periodEnd: string } | null;
  expiresAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewKey extends KeyRow {
  apiKey: string;
}

export interface Tenant {
  id: string;
  label: string;
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
const expired = (k: KeyRow) => !!k.expiresAt && new Date(k.expiresAt).getTime() <= Date.now();
export const stateOf = (k: KeyRow) => (k.revokedAt ? 'revoked' : expired(k) ? 'expired' : 'live');
export const count = (n: number | null) => (n === null ? 'no limit' : n.toLocaleString());
const usd = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });
/** A key's money budget and its spend this period, as the Limits cell says them. */
export const moneyOf = (k: KeyRow) =>
  k.budget
    ? `${k.spend ? `${usd.format(k.spend.spentUsd)} of ` : ''}${usd.format(k.budget.usd)} / ${k.budget.period === 'daily' ? 'day' : 'month'}`
    : 'no money budget';

/** The tenants an administrator may give a key: its realms' ids (a realm administrator's: its own) and its token's tenant. */
export function useTenants(person: PageProps['person']): { tenants: Tenant[]; fetching: boolean } {
  const [realms] = useQuery<{ adminRealms: { items: { realm: string; name: string }[] } }>({ query: TENANTS });
  const tenants: Tenant[] = (realms.data?.adminRealms.items ?? []).map((r) => ({ id: r.realm, label: `${r.name} (${r.realm})` }));
  if (person.tenant && !tenants.some((t) => t.id === person.tenant))
    tenants.unshift({ id: person.tenant, label: `${person.tenant} (yours)` });
  return { tenants, fetching: realms.fetching };
}
