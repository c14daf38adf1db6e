import { useId, useState } from 'react';
import type { CombinedError } from 'urql';
import { Failure } from '../../ui/states';

export { Confirm } from '../../ui/confirm';

/** A textarea's lines (one URI a line), trimmed, without the empty ones. */
export const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** A comma-separated list (roles), trimmed, without the empty items. */
export const commas = (text: string): string[] =>
  text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);

/** A form field's text (FormData gives strings for text controls). */
export function fieldOf(form: HTMLFormElement) {
  const data = new FormData(form);
  return (name: string) => {
    const v = data.get(name);
    return typeof v === 'string' ? v : '';
  };
}

/** Whether the graph refused an update because the object changed since it was read (a stale `version`). */
export const isStale = (error: CombinedError | undefined): boolean =>
  !!error?.graphQLErrors.some((e) => e.extensions?.code === 'PRECONDITION_FAILED');

/** What an action came to: a message for role=status, or the graph's refusal. */
export type Outcome = { ok: string; error?: undefined } | { ok?: undefined; error: CombinedError } | undefined;

/**
 * The outcome of an action: its message, the graph's error, or, for a stale `version`, a plain
 * "changed by someone else" with a button that reads the object again.
 */
export function OutcomeNote({ outcome, onReload }: { outcome: Outcome; onReload: () => void }) {
  if (!outcome) return null;
  if (outcome.error && isStale(outcome.error))
    return (
      <div className="state error" role="alert">
        <p>Changed by someone else since you read it: reload, then make your change again.</p>
        <button type="button" onClick={onReload}>
          Reload
        </button>
      </div>
    );
  if (outcome.error) return <Failure error={outcome.error} />;
  return (
    <p className="state" role="status">
      {outcome.ok}
    </p>
  );
}

/**
 * A secret shown once (a client's secret): a read-only field with a Copy button, and the warning
 * that it will not be shown again.
 */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string>();
  const note = useId();
  return (
    <div className="secret-once">
      <label className="field">
        {label}
        <input readOnly value={secret} aria-describedby={note} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <p id={note} className="secret-note">
        Copy it now: it will not be shown again (only a hash is kept).
      </p>
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(secret).then(
              () => setCopied('Copied to the clipboard.'),
              () => setCopied('Could not copy: select the field and copy it yourself.'),
            )
          }
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="state">
        {copied}
      </p>
    </div>
  );
}

/** An ISO time as this browser's locale writes it. */
export const when = (iso: string): string => new Date(iso).toLocaleString();
