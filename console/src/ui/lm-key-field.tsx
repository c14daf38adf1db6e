import { useState } from 'react';
import { lmKey } from '../graphql/lm-key';

/**
 * The playgrounds' LM key (a model key of the model gateway) as a password field: kept in the tab
 * (lm-key.ts) as it is typed, and sent by the graph client in the socket's connection parameters.
 */
export function LmKeyField({ describedBy, disabled }: { describedBy?: string; disabled?: boolean }) {
  const [key, setKey] = useState(lmKey.get);
  return (
    <label className="field">
      LM key (api-key)
      <input
        type="password"
        value={key}
        autoComplete="off"
        spellCheck={false}
        aria-describedby={describedBy}
        disabled={disabled}
        onChange={(e) => {
          setKey(e.target.value);
          lmKey.set(e.target.value.trim());
        }}
      />
    </label>
  );
}
