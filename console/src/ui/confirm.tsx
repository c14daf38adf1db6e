import { useState, type ReactNode } from 'react';

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
