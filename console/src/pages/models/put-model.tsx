import { useEffect, useId, useRef, useState } from 'react';
import { useMutation } from 'urql';
import { OutcomeNote, type Outcome } from '../realms/common';
import { EXAMPLE_ENTRY, PUT, pretty, type Editing, type ModelRow } from './catalog';

/** Add or replace a model: its id and its catalog entry (JSON), put at the version read when editing one. */
export function PutModel({ editing, onPut }: { editing: Editing; onPut: () => void }) {
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
