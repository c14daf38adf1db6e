import { useId } from 'react';
import { useMutation, useQuery } from 'urql';
import type { PageProps } from '../registry';
import { Failure } from '../../ui/states';
import { type NewKey, type Tenant } from './key-data';
import { TenantOptions } from './tenant-options';
import { MODELS, CREATE } from '../../operations/keys';

/** Now as a `datetime-local` value (the browser's time zone), the earliest expiry the form offers. */
function localNow(): string {
  const d = new Date(Date.now() + 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The form that creates a key with its tenant, limits, budget, models and expiry. */
export function CreateKey({
  tenants,
  platform,
  person,
  onCreated,
}: {
  tenants: Tenant[];
  platform: boolean;
  person: PageProps['person'];
  onCreated: (key: NewKey) => void;
}) {
  const [models] = useQuery<{ adminModels: { items: { id: string; kind: string }[]; nextCursor: string | null } }>({ query: MODELS });
  const [result, create] = useMutation<{ adminCreateModelKey: NewKey }>(CREATE);
  const listId = useId();
  const defaultTenant = person.tenant || tenants[0]?.id || '';
  return (
    <form
      className="inline-form keys-create"
      aria-label="Create a model key"
      onSubmit={(e) => {
        e.preventDefault();
        const target = e.currentTarget;
        const form = new FormData(target);
        const text = (name: string) => {
          const v = form.get(name);
          return typeof v === 'string' ? v.trim() : '';
        };
        const number = (name: string) => (text(name) ? Number(text(name)) : undefined);
        const chosen = form.getAll('models').filter((m): m is string => typeof m === 'string');
        const expiry = text('expiresAt');
        void create({
          input: {
            name: text('name'),
            tenantId: text('tenantId') || undefined,
            models: chosen.length ? chosen : undefined,
            requestsPerMinute: number('requestsPerMinute'),
            tokenBudget: number('tokenBudget'),
            // A money budget per month, warned of at 80 % (docs/spend.md); the admin API takes a daily one too.
            budget: number('budgetUsd') === undefined ? undefined : { usd: number('budgetUsd'), period: 'monthly' },
            expiresAt: expiry ? new Date(expiry).toISOString() : undefined,
          },
        }).then((r) => {
          if (r.data) {
            target.reset();
            onCreated(r.data.adminCreateModelKey);
          }
        });
      }}
    >
      <h2 className="keys-create-title">Create a key</h2>
      <label className="field">
        Name
        <input name="name" required maxLength={200} autoComplete="off" />
      </label>
      {platform ? (
        <label className="field">
          Tenant
          <input name="tenantId" list={`${listId}-tenants`} defaultValue={defaultTenant} maxLength={128} autoComplete="off" />
          <datalist id={`${listId}-tenants`}>
            <TenantOptions tenants={tenants} />
          </datalist>
        </label>
      ) : (
        <label className="field">
          Tenant
          <select name="tenantId" defaultValue={defaultTenant}>
            <TenantOptions tenants={tenants} />
          </select>
        </label>
      )}
      <label className="field">
        Requests per minute
        <input name="requestsPerMinute" type="number" min={1} step={1} inputMode="numeric" />
      </label>
      <label className="field">
        Tokens per month
        <input name="tokenBudget" type="number" min={1} step={1} inputMode="numeric" />
      </label>
      <label className="field">
        Budget per month (USD)
        <input name="budgetUsd" type="number" min={0.01} step={0.01} inputMode="decimal" />
      </label>
      <label className="field">
        Expires
        <input name="expiresAt" type="datetime-local" min={localNow()} />
      </label>
      {models.error ? (
        <Failure error={models.error} />
      ) : (
        <label className="field keys-models">
          Allowed models (none chosen: every model)
          <select
            name="models"
            multiple
            size={Math.min(6, Math.max(2, models.data?.adminModels.items.length ?? 2))}
            disabled={models.fetching}
          >
            {(models.data?.adminModels.items ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.id} ({m.kind})
              </option>
            ))}
          </select>
        </label>
      )}
      <button type="submit" disabled={result.fetching}>
        Create key
      </button>
      {result.error && <Failure error={result.error} />}
    </form>
  );
}
