import { useState, type ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { Failure } from './states';

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

/** A button that asks first: its question, then Yes (the action) and Cancel. */
export function Confirm({
  label,
  question,
  yes,
  onYes,
  disabled,
}: {
  label: ReactNode;
  question: string;
  yes: string;
  onYes: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        autoFocus
        onClick={() => {
          setAsking(false);
          onYes();
        }}
      >
        {yes}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** An ISO time as this browser's locale writes it. */
export const when = (iso: string): string => new Date(iso).toLocaleString();
