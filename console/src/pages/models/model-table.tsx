import { useState } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { Confirm, OutcomeNote, type Outcome } from '../realms/common';
import { DEACTIVATE, PUT, deploymentStateOf, entryOf, stateOf, type ModelRow } from './catalog';

/** The catalog's models, a row each (a card each on a phone), with Edit, Deactivate and Reactivate for platform administrators. */
export function ModelTable({
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
              <th scope="col">Deployments</th>
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
                <td data-label="Deployments">
                  <ul className="deployments" aria-label={`Deployments of ${m.id}`}>
                    {m.deployments.map((d) => (
                      <li key={d.deployment}>
                        <code>{d.deployment}</code>{' '}
                        <span className={`badge ${d.state === 'cooling' ? 'badge-warn' : 'badge-ok'}`}>{deploymentStateOf(d)}</span>{' '}
                        <span className="deployment-figures">
                          {d.inFlight} in flight, {d.latencyMs === null ? 'no latency yet' : `${Math.round(d.latencyMs)} ms`}
                        </span>
                      </li>
                    ))}
                  </ul>
                </td>
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
