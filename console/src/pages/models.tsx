import { useState } from 'react';
import { useQuery } from 'urql';
import { Pager } from '../ui/pager';
import { Empty, Failure, Loading } from '../ui/states';
import { EXAMPLE_ENTRY, MODELS, entryOf, pretty, type Editing, type ModelRow } from './models/catalog';
import { ModelTable } from './models/model-table';
import { PutModel } from './models/put-model';
import { TryPrompt } from './models/try-prompt';
import type { PageProps } from './registry';

/**
 * The model catalog (docs/admin.md, "Model catalog"): every model with its state, filtered by state
 * and source, paged; for platform administrators, a form that adds or replaces a model from a
 * catalog entry (JSON, as the catalog file holds it), Deactivate (after a confirmation) and
 * Reactivate (the model's entry put again), each at the version the page read. Realm
 * administrators read only. "Try a prompt" streams a model's answer through the graph's
 * `chatStream` subscription with the playgrounds' LM key (models/try-prompt.tsx).
 */
export function Models({ platform }: PageProps) {
  const [active, setActive] = useState<'all' | 'active' | 'inactive'>('all');
  const [source, setSource] = useState<'' | 'file' | 'admin'>('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [editing, setEditing] = useState<Editing>({ id: '', entry: pretty(EXAMPLE_ENTRY) });
  const [formKey, setFormKey] = useState(0);
  const [models, reload] = useQuery<{ adminModels: { items: ModelRow[]; nextCursor: string | null; total: number } }>({
    query: MODELS,
    variables: {
      active: active === 'all' ? undefined : active === 'active',
      source: source || undefined,
      after: cursors[cursors.length - 1] ?? undefined,
    },
  });
  const refresh = () => reload({ requestPolicy: 'network-only' });
  const page = models.data?.adminModels;
  const filtered = active !== 'all' || source !== '';

  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">Models</h1>
      {platform ? (
        <PutModel
          key={formKey}
          editing={editing}
          onPut={() => {
            setEditing({ id: '', entry: pretty(EXAMPLE_ENTRY) });
            refresh();
          }}
        />
      ) : (
        <p className="state models-readonly">
          You read the catalog here; adding, replacing, deactivating and reactivating models is for platform administrators only (the
          catalog serves every realm).
        </p>
      )}

      <h2>Catalog</h2>
      <div className="models-filters" role="search" aria-label="Filter the models">
        <label className="field">
          State
          <select
            value={active}
            onChange={(e) => {
              setActive(e.target.value as typeof active);
              setCursors([null]);
            }}
          >
            <option value="all">All</option>
            <option value="active">Active</option>
            <option value="inactive">Not active</option>
          </select>
        </label>
        <label className="field">
          Source
          <select
            value={source}
            onChange={(e) => {
              setSource(e.target.value as typeof source);
              setCursors([null]);
            }}
          >
            <option value="">Any</option>
            <option value="file">The catalog file (or built in)</option>
            <option value="admin">Given through the admin API</option>
          </select>
        </label>
      </div>

      {models.fetching && !page ? (
        <Loading what="models" />
      ) : models.error ? (
        <Failure error={models.error} />
      ) : !page || page.items.length === 0 ? (
        <Empty>{filtered ? 'No model matches these filters.' : 'The catalog has no model.'}</Empty>
      ) : (
        <>
          <ModelTable
            models={page.items}
            platform={platform}
            onChanged={refresh}
            onEdit={(m) => {
              setEditing({ id: m.id, entry: pretty(entryOf(m)), version: m.version });
              setFormKey((k) => k + 1);
            }}
          />
          <Pager cursors={cursors} next={page.nextCursor} total={page.total} shown={page.items.length} onPage={setCursors} />
        </>
      )}

      <TryPrompt />
    </section>
  );
}
