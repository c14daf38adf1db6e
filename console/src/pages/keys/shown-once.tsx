import { useEffect, useRef, useState } from 'react';
import type { NewKey } from './key-data';

/** A key's text, in the answer that made it only: a read-only field, a Copy button, and the warning. */
export function ShownOnce({ fresh, how, onDone }: { fresh: NewKey; how: 'created' | 'rotated'; onDone: () => void }) {
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
