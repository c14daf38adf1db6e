import { useState } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { count, moneyOf, stateOf, when, type KeyRow, type NewKey } from './key-data';
import { REVOKE, ROTATE } from '../../operations/keys';

type Pending = { id: string; action: 'revoke' | 'rotate' };

/** The keys, a row each (a card each on a phone), with Usage, and Rotate and Revoke after a confirmation. */
/** What a revoke or rotate came to: said by the page, above the list (which may be empty after it). */
export type KeyOutcome = { ok: string; error?: undefined } | { ok?: undefined; error: CombinedError } | undefined;

export function KeyTable({
  keys,
  onChanged,
  onUsage,
  onOutcome,
}: {
  keys: KeyRow[];
  onChanged: (rotated?: NewKey) => void;
  onUsage: (k: KeyRow) => void;
  onOutcome: (outcome: KeyOutcome) => void;
}) {
  const [pending, setPending] = useState<Pending>();
  const [revoking, revoke] = useMutation<{ adminRevokeModelKey: KeyRow }>(REVOKE);
  const [rotating, rotate] = useMutation<{ adminRotateModelKey: NewKey }>(ROTATE);
  const busy = revoking.fetching || rotating.fetching;

  const confirm = (k: KeyRow, action: Pending['action']) => {
    onOutcome(undefined);
    const run = action === 'revoke' ? revoke({ id: k.id }) : rotate({ id: k.id });
    void run.then((r) => {
      setPending(undefined);
      if (r.error) return onOutcome({ error: r.error });
      if (action === 'revoke') {
        onOutcome({ ok: `Key “${k.name}” (${k.prefix}…) revoked.` });
        onChanged();
      } else {
        onOutcome({ ok: `Key “${k.name}” (${k.prefix}…) rotated: the old key is revoked.` });
        onChanged((r.data as { adminRotateModelKey: NewKey }).adminRotateModelKey);
      }
    });
  };

  return (
    <>
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
                    <br />
                    {moneyOf(k)}
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
