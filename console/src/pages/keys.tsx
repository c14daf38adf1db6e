import { useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import type { PageProps } from './registry';
import { Pager } from '../ui/pager';
import { Empty, Failure, Loading } from '../ui/states';

/**
 * Model keys (docs/admin.md, "Model keys and usage"): the keys an administrator may see (a realm
 * administrator: its tenants'), filtered by tenant, state and name; a form to create one with its
 * limits, budget, models and expiry; the new key (created or rotated) shown once with a Copy
 * button; revoking and rotating after a confirmation; each key's calls over the last 30 days.
 */

const KEY_FIELDS = 'id prefix name tenantId models requestsPerMinute tokenBudget expiresAt createdAt revokedAt';
const KEYS = `query ConsoleModelKeys($tenant: ID, $revoked: Boolean, $q: String, $after: String) {
  adminModelKeys(tenant: $tenant, revoked: $revoked, q: $q, first: 25, after: $after, sort: "-created_at") { items { ${KEY_FIELDS} } nextCursor total }
}`;
const TENANTS = `query ConsoleKeyTenants { adminRealms(first: 200) { items { realm name } } }`;
const MODELS = `query ConsoleKeyModels { adminModels(active: true, first: 200) { items { id kind } nextCursor } }`;
const CREATE = `mutation ConsoleCreateModelKey($input: AdminModelKeyInput!) { adminCreateModelKey(input: $input) { apiKey ${KEY_FIELDS} } }`;
const REVOKE = `mutation ConsoleRevokeModelKey($id: ID!) { adminRevokeModelKey(id: $id) { ${KEY_FIELDS} } }`;
const ROTATE = `mutation ConsoleRotateModelKey($id: ID!) { adminRotateModelKey(id: $id) { apiKey ${KEY_FIELDS} } }`;
const USAGE = `query ConsoleKeyUsage($key: ID!) {
  adminUsage(key: $key, first: 200, sort: "-day") { items { day model requests inputTokens outputTokens errors } nextCursor }
}`;

interface KeyRow {
  id: string;
  prefix: string;
  name: string;
  tenantId: string;
  models: string[] | null;
  requestsPerMinute: number | null;
  tokenBudget: number | null;
  expiresAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}
interface NewKey extends KeyRow {
  apiKey: string;
}
interface Tenant {
  id: string;
  label: string;
}
interface UsageRow {
  day: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  errors: number;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
const expired = (k: KeyRow) => !!k.expiresAt && new Date(k.expiresAt).getTime() <= Date.now();
const stateOf = (k: KeyRow) => (k.revokedAt ? 'revoked' : expired(k) ? 'expired' : 'live');
const count = (n: number | null) => (n === null ? 'no limit' : n.toLocaleString());

/** The tenants an administrator may give a key: its realms' ids (a realm administrator's: its own) and its token's tenant. */
function useTenants(person: PageProps['person']): { tenants: Tenant[]; fetching: boolean } {
  const [realms] = useQuery<{ adminRealms: { items: { realm: string; name: string }[] } }>({ query: TENANTS });
  const tenants: Tenant[] = (realms.data?.adminRealms.items ?? []).map((r) => ({ id: r.realm, label: `${r.name} (${r.realm})` }));
  if (person.tenant && !tenants.some((t) => t.id === person.tenant))
    tenants.unshift({ id: person.tenant, label: `${person.tenant} (yours)` });
  return { tenants, fetching: realms.fetching };
}

export function Keys({ person, platform }: PageProps) {
  const { tenants, fetching } = useTenants(person);
  const [tenant, setTenant] = useState('');
  const [revoked, setRevoked] = useState<'live' | 'revoked' | 'all'>('live');
  const [q, setQ] = useState('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [fresh, setFresh] = useState<{ key: NewKey; how: 'created' | 'rotated' }>();
  const [usageOf, setUsageOf] = useState<KeyRow>();
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
              {tenants.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </datalist>
          </label>
        ) : (
          <label className="field">
            Tenant
            <select value={tenant} onChange={(e) => filter(setTenant)(e.target.value)}>
              <option value="">Every tenant of yours</option>
              {tenants.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
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
          />
          <Pager cursors={cursors} next={page.nextCursor} total={page.total} shown={page.items.length} onPage={setCursors} />
        </>
      )}
      {usageOf && <KeyUsage key={`usage-${usageOf.id}`} which={usageOf} onClose={() => setUsageOf(undefined)} />}
    </section>
  );
}

/** A key's text, in the answer that made it only: a read-only field, a Copy button, and the warning. */
function ShownOnce({ fresh, how, onDone }: { fresh: NewKey; how: 'created' | 'rotated'; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no'>();
  useEffect(() => heading.current?.focus(), []);
  return (
    <div className="key-once" role="region" aria-labelledby="key-once-title">
      <h2 id="key-once-title" ref={heading} tabIndex={-1}>
        Key “{fresh.name}” {how}
      </h2>
      <p>
        Copy the key now: <strong>it will not be shown again</strong>.{how === 'rotated' && ' The key it replaces is revoked.'}
      </p>
      <div className="key-once-copy">
        <label className="field">
          The new key
          <input ref={field} readOnly value={fresh.apiKey} onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
        </label>
        <button
          type="button"
          onClick={() => {
            navigator.clipboard.writeText(fresh.apiKey).then(
              () => setCopied('yes'),
              () => {
                setCopied('no');
                field.current?.select();
              },
            );
          }}
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === 'yes' && <p role="status">Copied to the clipboard.</p>}
      {copied === 'no' && (
        <p className="state error" role="alert">
          The browser refused the clipboard: the key is selected, copy it with the keyboard.
        </p>
      )}
    </div>
  );
}

/** Now as a `datetime-local` value (the browser's time zone), the earliest expiry the form offers. */
function localNow(): string {
  const d = new Date(Date.now() + 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function CreateKey({
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
            {tenants.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </datalist>
        </label>
      ) : (
        <label className="field">
          Tenant
          <select name="tenantId" defaultValue={defaultTenant}>
            {tenants.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
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

type Pending = { id: string; action: 'revoke' | 'rotate' };

function KeyTable({ keys, onChanged, onUsage }: { keys: KeyRow[]; onChanged: (rotated?: NewKey) => void; onUsage: (k: KeyRow) => void }) {
  const [pending, setPending] = useState<Pending>();
  const [revoking, revoke] = useMutation<{ adminRevokeModelKey: KeyRow }>(REVOKE);
  const [rotating, rotate] = useMutation<{ adminRotateModelKey: NewKey }>(ROTATE);
  const [done, setDone] = useState<string>();
  const [error, setError] = useState<Parameters<typeof Failure>[0]['error']>();
  const busy = revoking.fetching || rotating.fetching;

  const confirm = (k: KeyRow, action: Pending['action']) => {
    setError(undefined);
    setDone(undefined);
    const run = action === 'revoke' ? revoke({ id: k.id }) : rotate({ id: k.id });
    void run.then((r) => {
      setPending(undefined);
      if (r.error) return setError(r.error);
      if (action === 'revoke') {
        setDone(`Key “${k.name}” (${k.prefix}…) revoked.`);
        onChanged();
      } else {
        setDone(`Key “${k.name}” (${k.prefix}…) rotated: the old key is revoked.`);
        onChanged((r.data as { adminRotateModelKey: NewKey }).adminRotateModelKey);
      }
    });
  };

  return (
    <>
      {error && <Failure error={error} />}
      {done && <p role="status">{done}</p>}
      <div className="table-wrap">
        <table className="keys-table">
          <caption className="visually-hidden">Model keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Tenant</th>
              <th scope="col">Models</th>
              <th scope="col">Limits</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => {
              const state = stateOf(k);
              const asking = pending?.id === k.id ? pending.action : undefined;
              return (
                <tr key={k.id}>
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Prefix">
                    <code>{k.prefix}…</code>
                  </td>
                  <td data-label="Tenant">{k.tenantId}</td>
                  <td data-label="Models">{k.models?.join(', ') ?? 'every model'}</td>
                  <td data-label="Limits">
                    {count(k.requestsPerMinute)} / min
                    <br />
                    {count(k.tokenBudget)} tokens / month
                  </td>
                  <td data-label="Expires">{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                  <td data-label="State">{state === 'revoked' ? `revoked ${when(k.revokedAt)}` : state}</td>
                  <td data-label="Actions">
                    {asking ? (
                      <div className="keys-confirm" role="group" aria-label={`Confirm: ${asking} ${k.name}`}>
                        <span>
                          {asking === 'revoke' ? 'Revoke' : 'Rotate'} “{k.name}”?
                        </span>
                        <button type="button" autoFocus disabled={busy} onClick={() => confirm(k, asking)}>
                          Yes, {asking}
                        </button>
                        <button type="button" disabled={busy} onClick={() => setPending(undefined)}>
                          Cancel
                        </button>
                      </div>
                    ) : (
                      <div className="keys-actions">
                        <button type="button" onClick={() => onUsage(k)}>
                          Usage<span className="visually-hidden"> of {k.name}</span>
                        </button>
                        {state === 'live' && (
                          <button type="button" onClick={() => setPending({ id: k.id, action: 'rotate' })}>
                            Rotate<span className="visually-hidden"> {k.name}</span>
                          </button>
                        )}
                        {state !== 'revoked' && (
                          <button type="button" onClick={() => setPending({ id: k.id, action: 'revoke' })}>
                            Revoke<span className="visually-hidden"> {k.name}</span>
                          </button>
                        )}
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A key's calls over the last 30 days (adminUsage's default), summed per UTC day over its models. */
function KeyUsage({ which, onClose }: { which: KeyRow; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [usage] = useQuery<{ adminUsage: { items: UsageRow[]; nextCursor: string | null } }>({
    query: USAGE,
    variables: { key: which.id },
  });
  useEffect(() => heading.current?.focus(), []);
  const days = new Map<string, { requests: number; input: number; output: number; errors: number }>();
  for (const r of usage.data?.adminUsage.items ?? []) {
    const d = days.get(r.day) ?? { requests: 0, input: 0, output: 0, errors: 0 };
    d.requests += r.requests;
    d.input += r.inputTokens;
    d.output += r.outputTokens;
    d.errors += r.errors;
    days.set(r.day, d);
  }
  const total = [...days.values()].reduce(
    (t, d) => ({ requests: t.requests + d.requests, input: t.input + d.input, output: t.output + d.output, errors: t.errors + d.errors }),
    { requests: 0, input: 0, output: 0, errors: 0 },
  );
  return (
    <section className="keys-usage" aria-labelledby="keys-usage-title">
      <h2 id="keys-usage-title" ref={heading} tabIndex={-1}>
        Usage of “{which.name}” ({which.prefix}…), last 30 days
      </h2>
      {usage.fetching ? (
        <Loading what="usage" />
      ) : usage.error ? (
        <Failure error={usage.error} />
      ) : days.size === 0 ? (
        <Empty>No calls with this key in the last 30 days.</Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Calls per day (UTC) with the key {which.name}</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Requests</th>
                <th scope="col">Tokens in</th>
                <th scope="col">Tokens out</th>
                <th scope="col">Errors</th>
              </tr>
            </thead>
            <tbody>
              {[...days].map(([day, d]) => (
                <tr key={day}>
                  <td>{day}</td>
                  <td>{d.requests.toLocaleString()}</td>
                  <td>{d.input.toLocaleString()}</td>
                  <td>{d.output.toLocaleString()}</td>
                  <td>{d.errors.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                <td>{total.requests.toLocaleString()}</td>
                <td>{total.input.toLocaleString()}</td>
                <td>{total.output.toLocaleString()}</td>
                <td>{total.errors.toLocaleString()}</td>
              </tr>
            </tfoot>
          </table>
          {usage.data?.adminUsage.nextCursor && <p className="state">The first 200 rows (day × model) only.</p>}
        </div>
      )}
      <button type="button" onClick={onClose}>
        Close usage
      </button>
    </section>
  );
}
