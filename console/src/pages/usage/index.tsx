import { useId, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { Failure } from '../../ui/states';
import { KEYS, MODELS, USAGE, lastDays, useAll, type By, type Filters, type KeyRow, type Row } from './data';
import { UsageView } from './view';

const NO_VARS = {};

/** Calls per day, model, key and tenant, with filters, charts, totals and a CSV of the rows. */
export function Usage() {
  const [draft, setDraft] = useState<Filters>(() => ({ ...lastDays(30), tenant: '', key: '', model: '' }));
  const [filters, setFilters] = useState<Filters>(draft);
  const [by, setBy] = useState<By>('model');
  // Selects are labelled by `for`: a label around a select would take its options' text into its name.
  const id = useId();
  const ids = { key: `${id}-key`, model: `${id}-model` };
  const vars = useMemo(
    () => ({
      from: filters.from,
      to: filters.to,
      tenant: filters.tenant.trim() || undefined,
      key: filters.key || undefined,
      model: filters.model || undefined,
    }),
    [filters],
  );
  const usage = useAll<Row>(USAGE, 'adminUsage', vars);
  // Every key (the filter's choices, and the names the charts and totals give keys), and the catalog's models.
  const allKeys = useAll<KeyRow>(KEYS, 'adminModelKeys', NO_VARS);
  const [catalog] = useQuery<{ adminModels: { items: { id: string }[] } }>({ query: MODELS });
  const keys = allKeys.rows;
  const models = catalog.data?.adminModels.items ?? [];
  const keyNames = useMemo(() => new Map(keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`])), [keys]);
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <form
        className="inline-form usage-filters"
        aria-label="Usage filters"
        onSubmit={(e) => {
          e.preventDefault();
          // A new object each time: the same filters are read again (new calls since).
          setFilters({ ...draft });
        }}
      >
        <label className="field">
          From
          <input type="date" required value={draft.from} max={draft.to} onChange={set('from')} />
        </label>
        <label className="field">
          To
          <input type="date" required value={draft.to} min={draft.from} onChange={set('to')} />
        </label>
        <label className="field">
          Tenant
          <input value={draft.tenant} onChange={set('tenant')} autoComplete="off" placeholder="every tenant" />
        </label>
        <div className="field">
          <label htmlFor={ids.key}>Key</label>
          <select value={draft.key} onChange={set('key')} id={ids.key}>
            <option value="">Every key</option>
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.prefix}…)
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.model}>Model</label>
          <select value={draft.model} onChange={set('model')} id={ids.model}>
            <option value="">Every model</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="usage-apply">
          Show usage
        </button>
      </form>
      {allKeys.error && <Failure error={allKeys.error} />}
      {catalog.error && <Failure error={catalog.error} />}
      <UsageView usage={usage} filters={filters} by={by} setBy={setBy} keyNames={keyNames} />
    </section>
  );
}
