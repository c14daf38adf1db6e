import { useId, useState } from 'react';

/** The pieces every page's actions use, kept in ui/actions.tsx (the realms' pages import them from here too). */
export { Confirm, isStale, OutcomeNote, when, type Outcome } from '../../ui/actions';

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
