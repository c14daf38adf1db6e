import { useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { lmKey } from '../graphql/lm-key';
import { Pager } from '../ui/pager';
import { Empty, Failure, Loading } from '../ui/states';
import type { PageProps } from './registry';
import { Confirm, OutcomeNote, type Outcome } from './realms/common';

/**
 * The model catalog (docs/admin.md, "Model catalog"): every model with its state, filtered by state
 * and source, paged; for platform administrators, a form that adds or replaces a model from a
 * catalog entry (JSON, as the catalog file holds it), Deactivate (after a confirmation) and
 * Reactivate (the model's entry put again), each at the version the page read. Realm
 * administrators read only. "Try a prompt" calls a model through the graph's `chat` mutation with
 * the playgrounds' LM key (lm-key.ts) in the `api-key` header; the answer comes whole.
 */

const MODEL_FIELDS = `id group kind status source active version contextLength maxOutputTokens dimensions inputKinds
  upstream { provider baseUrl model credentialEnv region apiVersion } price { inputPerMillion outputPerMillion }`;
const MODELS = `query ConsoleModels($active: Boolean, $source: String, $after: String) {
  adminModels(active: $active, source: $source, first: 25, after: $after, sort: "id") { items { ${MODEL_FIELDS} } nextCursor total }
}`;
const CHAT_MODELS = `query ConsoleChatModels { adminModels(active: true, first: 200, sort: "id") { items { id kind } } }`;
const PUT = `mutation ConsolePutModel($id: ID!, $entry: JSONObject!, $version: Int) {
  adminPutModel(id: $id, entry: $entry, version: $version) { ${MODEL_FIELDS} }
}`;
const DEACTIVATE = `mutation ConsoleDeactivateModel($id: ID!, $version: Int) { adminDeactivateModel(id: $id, version: $version) { ${MODEL_FIELDS} } }`;
const CHAT = `mutation ConsoleTryModel($input: ChatInput!) {
  chat(input: $input) { id content finishReason cached guard model { id } usage { promptTokens completionTokens totalTokens } }
}`;

interface ModelRow {
  id: string;
  group: string;
  kind: string;
  status: string;
  source: 'file' | 'admin';
  active: boolean;
  version: number;
  contextLength: number;
  maxOutputTokens: number | null;
  dimensions: number | null;
  inputKinds: string[];
  upstream: {
    provider: string;
    baseUrl: string | null;
    model: string | null;
    credentialEnv: string | null;
    region: string | null;
    apiVersion: string | null;
  };
  price: { inputPerMillion: number; outputPerMillion: number };
}

interface Completion {
  id: string;
  content: string;
  finishReason: 'STOP' | 'LENGTH' | 'CONTENT_FILTER' | 'ERROR';
  cached: boolean;
  guard: string;
  model: { id: string };
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
}

/** The form's first entry: an alias of the offline local model. */
const EXAMPLE_ENTRY = { group: 'A', kind: 'chat', upstream: { provider: 'local' }, contextLength: 8192 };
const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** What the page shows as a model's state. */
const stateOf = (m: ModelRow) => (m.active ? 'active' : m.status === 'Deactivated' ? 'deactivated' : `inactive (${m.status})`);

/**
 * A model's catalog entry as the catalog file would hold it, rebuilt from what the graph shows (the
 * graph gives no entry as such), active: what Reactivate puts again and Edit starts from. The
 * graph shows a deactivated model's status as `Deactivated`, so its own status is not known here:
 * the entry put back says `Active`.
 */
function entryOf(m: ModelRow): Record<string, unknown> {
  const upstream: Record<string, string> = { provider: m.upstream.provider };
  for (const k of ['baseUrl', 'model', 'credentialEnv', 'region', 'apiVersion'] as const) {
    const v = m.upstream[k];
    if (v !== null) upstream[k] = v;
  }
  const entry: Record<string, unknown> = { group: m.group, kind: m.kind, upstream, contextLength: m.contextLength };
  if (m.dimensions !== null) entry.dimensions = m.dimensions;
  if (m.maxOutputTokens !== null) entry.maxOutputTokens = m.maxOutputTokens;
  entry.price = m.price;
  entry.status = 'Active';
  entry.inputKinds = m.inputKinds;
  return entry;
}

/** The model being edited in the form: its id, entry and the version read. */
interface Editing {
  id: string;
  entry: string;
  version?: number;
}

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

/** Add or replace a model: its id and its catalog entry (JSON), put at the version read when editing one. */
function PutModel({ editing, onPut }: { editing: Editing; onPut: () => void }) {
  const [result, put] = useMutation<{ adminPutModel: ModelRow }>(PUT);
  const [outcome, setOutcome] = useState<Outcome>();
  const [invalid, setInvalid] = useState<string>();
  const [id, setId] = useState(editing.id);
  const [entry, setEntry] = useState(editing.entry);
  const ids = { help: useId(), title: useId() };
  const idField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing.id) idField.current?.focus();
  }, [editing.id]);

  return (
    <form
      className="inline-form models-put"
      aria-labelledby={ids.title}
      onSubmit={(e) => {
        e.preventDefault();
        setOutcome(undefined);
        setInvalid(undefined);
        let parsed: unknown;
        try {
          parsed = JSON.parse(entry);
        } catch (err) {
          return setInvalid(`The entry is not JSON: ${(err as Error).message}`);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          return setInvalid('The entry must be a JSON object, as a model of the catalog file is.');
        const name = id.trim();
        void put({ id: name, entry: parsed, version: name === editing.id ? editing.version : undefined }).then((r) => {
          if (r.error) return setOutcome({ error: r.error });
          const m = r.data?.adminPutModel;
          setOutcome({ ok: `Model ${m?.id ?? name} saved (version ${m?.version ?? '?'}); it is active.` });
          setId('');
          setEntry(pretty(EXAMPLE_ENTRY));
          onPut();
        });
      }}
    >
      <h2 id={ids.title} className="models-put-title">
        Add or replace a model
      </h2>
      <label className="field">
        Model id
        <input
          ref={idField}
          value={id}
          onChange={(e) => setId(e.target.value)}
          required
          maxLength={200}
          autoComplete="off"
          spellCheck={false}
        />
      </label>
      <label className="field wide">
        Catalog entry (JSON)
        <textarea
          className="models-entry"
          value={entry}
          onChange={(e) => setEntry(e.target.value)}
          rows={9}
          required
          spellCheck={false}
          aria-describedby={ids.help}
        />
      </label>
      <p id={ids.help} className="hint">
        A model as the catalog file holds it (its <code>id</code> may be left out): <code>group</code> A, B, C or embedding,{' '}
        <code>kind</code>, <code>upstream</code> (<code>provider</code> local, azure-openai, gemini, bedrock or openai-compatible),{' '}
        <code>contextLength</code>, and optionally <code>maxOutputTokens</code>, <code>price</code>, <code>inputKinds</code>. The example is
        an alias of the offline local model. Saving a model that exists replaces it and makes it active.
      </p>
      <button type="submit" disabled={result.fetching}>
        Save model
      </button>
      {invalid && (
        <p className="state error" role="alert">
          {invalid}
        </p>
      )}
      <OutcomeNote outcome={outcome} onReload={() => setOutcome(undefined)} />
    </form>
  );
}

function ModelTable({
  models,
  platform,
  onChanged,
  onEdit,
}: {
  models: ModelRow[];
  platform: boolean;
  onChanged: () => void;
  onEdit: (m: ModelRow) => void;
}) {
  const [deactivating, deactivate] = useMutation<{ adminDeactivateModel: ModelRow }>(DEACTIVATE);
  const [putting, put] = useMutation<{ adminPutModel: ModelRow }>(PUT);
  const [outcome, setOutcome] = useState<Outcome>();
  const busy = deactivating.fetching || putting.fetching;
  const after = (r: { error?: CombinedError }, ok: string) => {
    setOutcome(r.error ? { error: r.error } : { ok });
    if (!r.error) onChanged();
  };

  return (
    <>
      <OutcomeNote
        outcome={outcome}
        onReload={() => {
          setOutcome(undefined);
          onChanged();
        }}
      />
      <div className="table-wrap">
        <table className="models-table">
          <caption className="visually-hidden">The model catalog</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Kind</th>
              <th scope="col">Provider</th>
              <th scope="col">Source</th>
              <th scope="col">State</th>
              <th scope="col">Context length</th>
              {platform && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.id}>
                <td data-label="Id">
                  <code>{m.id}</code>
                </td>
                <td data-label="Kind">{m.kind}</td>
                <td data-label="Provider">{m.upstream.provider}</td>
                <td data-label="Source">{m.source}</td>
                <td data-label="State">{stateOf(m)}</td>
                <td data-label="Context length">{m.contextLength.toLocaleString()}</td>
                {platform && (
                  <td data-label="Actions">
                    <div className="actions">
                      <button type="button" disabled={busy} onClick={() => onEdit(m)}>
                        Edit<span className="visually-hidden"> {m.id}</span>
                      </button>
                      {m.active ? (
                        <Confirm
                          label={
                            <>
                              Deactivate<span className="visually-hidden"> {m.id}</span>
                            </>
                          }
                          question={`Deactivate ${m.id}? Calls to it will be refused.`}
                          yes="Yes, deactivate"
                          disabled={busy}
                          onYes={() =>
                            void deactivate({ id: m.id, version: m.version }).then((r) =>
                              after(r, `${m.id} deactivated: calls to it are refused until it is reactivated.`),
                            )
                          }
                        />
                      ) : (
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() =>
                            void put({ id: m.id, entry: entryOf(m), version: m.version }).then((r) => after(r, `${m.id} reactivated.`))
                          }
                        >
                          Reactivate<span className="visually-hidden"> {m.id}</span>
                        </button>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A prompt to one model through the graph's `chat` mutation, with the playgrounds' LM key in `api-key`; the answer comes whole. */
function TryPrompt() {
  const [chatModels] = useQuery<{ adminModels: { items: { id: string; kind: string }[] } }>({ query: CHAT_MODELS });
  const [result, chat] = useMutation<{ chat: Completion | null }>(CHAT);
  const [key, setKey] = useState(lmKey.get);
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [answer, setAnswer] = useState<Completion>();
  const [error, setError] = useState<CombinedError | string>();
  const ids = { help: useId(), title: useId() };
  const choices = (chatModels.data?.adminModels.items ?? []).filter((m) => m.kind === 'chat').map((m) => m.id);
  const chosen = model || (choices.includes('local-chat') ? 'local-chat' : (choices[0] ?? ''));

  return (
    <section className="models-try" aria-labelledby={ids.title}>
      <h2 id={ids.title}>Try a prompt</h2>
      <form
        className="inline-form models-try-form"
        aria-label="Try a prompt"
        onSubmit={(e) => {
          e.preventDefault();
          setAnswer(undefined);
          setError(undefined);
          const apiKey = key.trim();
          if (!apiKey) return setError('Give an LM key first: the graph calls models with one.');
          void chat(
            { input: { model: chosen, messages: [{ role: 'USER', content: prompt }] } },
            { fetchOptions: { headers: { 'api-key': apiKey } } },
          ).then((r) => {
            if (r.error) setError(r.error);
            else if (r.data?.chat) setAnswer(r.data.chat);
            else setError('The graph gave no answer.');
          });
        }}
      >
        <label className="field">
          LM key (api-key)
          <input
            type="password"
            value={key}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={ids.help}
            onChange={(e) => {
              setKey(e.target.value);
              lmKey.set(e.target.value.trim());
            }}
          />
        </label>
        <label className="field">
          Model
          {chatModels.error ? (
            <input value={model} onChange={(e) => setModel(e.target.value)} required autoComplete="off" />
          ) : (
            <select value={chosen} onChange={(e) => setModel(e.target.value)} required disabled={chatModels.fetching}>
              {choices.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          )}
        </label>
        <label className="field wide">
          Prompt
          <textarea className="models-prompt" value={prompt} onChange={(e) => setPrompt(e.target.value)} rows={3} required />
        </label>
        <p id={ids.help} className="hint">
          The model is called with an LM key of the model gateway (one from Model keys, or the first start’s demo <code>api_key</code>), the
          one the Chat page keeps: in this tab only. The answer appears whole once the model has finished: the graph has no streamed chat
          for a model (the Chat page streams answers from your documents).
        </p>
        <button type="submit" disabled={result.fetching || !chosen}>
          Send
        </button>
      </form>
      <p className="state" role="status">
        {result.fetching ? 'Waiting for the whole answer…' : answer ? 'The answer has come.' : ''}
      </p>
      {error && <Failure error={error} />}
      {answer && (
        <div className="models-answer" role="region" aria-label="The answer">
          <p className="models-answer-text">{answer.content}</p>
          <dl className="facts">
            <dt>Model</dt>
            <dd>{answer.model.id}</dd>
            <dt>Finished</dt>
            <dd>{answer.finishReason.toLowerCase().replace('_', ' ')}</dd>
            <dt>Tokens</dt>
            <dd>
              {answer.usage.promptTokens} in, {answer.usage.completionTokens} out
            </dd>
            <dt>From the cache</dt>
            <dd>{answer.cached ? 'yes' : 'no'}</dd>
            <dt>Guardrails</dt>
            <dd>{answer.guard}</dd>
          </dl>
        </div>
      )}
    </section>
  );
}
