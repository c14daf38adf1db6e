import { useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { PagedTable, SearchField, useCursors, type GraphPage } from '../../ui/paged-table';
import { Empty, Failure, Loading } from '../../ui/states';
import { commas, Confirm, fieldOf, lines, OutcomeNote, SecretOnce, when, type Outcome } from './common';
import { CLIENTS, CLIENT, CREATE_CLIENT, UPDATE_CLIENT, REGENERATE } from '../../operations/realms';

interface ClientRow {
  clientId: string;
  tenantId: string;
  enabled: boolean;
  public: boolean;
  roles: string[];
  scopes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  webOrigins: string[];
  createdAt: string;
  version: number;
}

/** A secret just made (by creating a client or regenerating its secret), shown once. */
interface Fresh {
  clientId: string;
  secret: string;
}

/** A realm's clients: a search, a page at a time, a form to create one, and one client's management. */
export function Clients({ realm }: { realm: string }) {
  const [q, setQ] = useState('');
  const { cursors, setCursors, after, restart } = useCursors();
  const [chosen, setChosen] = useState<string>();
  const [clients, reload] = useQuery<{ adminClients: GraphPage<ClientRow> }>({
    query: CLIENTS,
    variables: { realm, q: q || undefined, after },
  });
  const again = () => reload({ requestPolicy: 'network-only' });
  return (
    <>
      <h2>Clients</h2>
      <CreateClient realm={realm} onCreated={again} />
      <SearchField
        label="Find a client"
        value={q}
        onChange={(v) => {
          setQ(v);
          restart();
        }}
      />
      <PagedTable
        result={clients}
        page={clients.data?.adminClients}
        what="clients"
        empty={`No client${q ? ` matches “${q}”` : ' in this realm yet'}.`}
        caption="Clients of the realm"
        head={['Client ID', 'Type', 'Roles', 'Redirect URIs', 'State', 'Action']}
        cursors={cursors}
        onPage={setCursors}
        row={(c) => (
          <tr key={c.clientId}>
            <td>{c.clientId}</td>
            <td>{c.public ? 'public' : 'confidential'}</td>
            <td>{c.roles.join(', ') || '—'}</td>
            <td>{c.redirectUris.join(' ') || '—'}</td>
            <td>{c.enabled ? 'enabled' : 'disabled'}</td>
            <td>
              <button type="button" aria-pressed={chosen === c.clientId} onClick={() => setChosen(c.clientId)}>
                Manage<span className="visually-hidden"> {c.clientId}</span>
              </button>
            </td>
          </tr>
        )}
      />
      {chosen && <ClientDetail key={chosen} realm={realm} clientId={chosen} onChanged={again} onClose={() => setChosen(undefined)} />}
    </>
  );
}

/** The URI lists of a client, one per line, as its create and edit forms take them. */
function UriFields({ client }: { client?: ClientRow }) {
  return (
    <>
      <label className="field wide">
        Redirect URIs (one per line)
        <textarea name="redirectUris" rows={3} defaultValue={client?.redirectUris.join('\n')} />
      </label>
      <label className="field wide">
        Post-logout redirect URIs (one per line)
        <textarea name="postLogoutRedirectUris" rows={2} defaultValue={client?.postLogoutRedirectUris.join('\n')} />
      </label>
      <label className="field wide">
        Web origins (one per line)
        <textarea name="webOrigins" rows={2} defaultValue={client?.webOrigins.join('\n')} />
      </label>
    </>
  );
}

function CreateClient({ realm, onCreated }: { realm: string; onCreated: () => void }) {
  const [result, create] = useMutation<{ adminCreateClient: { clientId: string; public: boolean; clientSecret: string | null } }>(
    CREATE_CLIENT,
  );
  const [done, setDone] = useState<string>();
  const [fresh, setFresh] = useState<Fresh>();
  return (
    <>
      <form
        className="inline-form"
        aria-label="Create a client"
        onSubmit={(e) => {
          e.preventDefault();
          const target = e.currentTarget;
          const field = fieldOf(target);
          setDone(undefined);
          void create({
            realm,
            input: {
              clientId: field('clientId').trim(),
              public: field('public') === 'on',
              tenantId: field('tenantId').trim() || undefined,
              roles: commas(field('roles')),
              redirectUris: lines(field('redirectUris')),
              postLogoutRedirectUris: lines(field('postLogoutRedirectUris')),
              webOrigins: lines(field('webOrigins')),
            },
          }).then((r) => {
            const made = r.data?.adminCreateClient;
            if (!made) return;
            setDone(`Client ${made.clientId} created${made.public ? ' (public: no secret)' : ''}.`);
            if (made.clientSecret) setFresh({ clientId: made.clientId, secret: made.clientSecret });
            target.reset();
            onCreated();
          });
        }}
      >
        <label className="field">
          Client ID
          <input name="clientId" required autoComplete="off" />
        </label>
        <label className="check">
          <input name="public" type="checkbox" />
          Public client (no secret: browser and native apps)
        </label>
        <label className="field">
          Tenant (optional)
          <input name="tenantId" autoComplete="off" />
        </label>
        <label className="field">
          Roles (comma-separated)
          <input name="roles" autoComplete="off" />
        </label>
        <UriFields />
        <button type="submit" disabled={result.fetching}>
          Create client
        </button>
        {result.error ? <Failure error={result.error} /> : done && <p role="status">{done}</p>}
      </form>
      {fresh && <SecretOnce label={`Client secret of ${fresh.clientId}`} secret={fresh.secret} onDone={() => setFresh(undefined)} />}
    </>
  );
}

/** One client: its settings (at the version read), enable or disable, and a new secret (confidential). */
function ClientDetail({
  realm,
  clientId,
  onChanged,
  onClose,
}: {
  realm: string;
  clientId: string;
  onChanged: () => void;
  onClose: () => void;
}) {
  const [client, reload] = useQuery<{ adminClient: ClientRow }>({ query: CLIENT, variables: { realm, clientId } });
  const [updating, update] = useMutation<{ adminUpdateClient: ClientRow }>(UPDATE_CLIENT);
  const [regenerating, regenerate] = useMutation<{ adminRegenerateClientSecret: { clientSecret: string | null } }>(REGENERATE);
  const [outcome, setOutcome] = useState<Outcome>();
  const [fresh, setFresh] = useState<Fresh>();
  const again = () => reload({ requestPolicy: 'network-only' });
  const after = (r: { error?: CombinedError }, ok: string) => {
    setOutcome(r.error ? { error: r.error } : { ok });
    if (!r.error) {
      again();
      onChanged();
    }
  };
  const c = client.data?.adminClient;
  const busy = updating.fetching || regenerating.fetching;
  return (
    <section className="detail" aria-labelledby="client-detail-title">
      <div className="detail-head">
        <h3 id="client-detail-title">Client {clientId}</h3>
        <button type="button" onClick={onClose}>
          Close<span className="visually-hidden"> client {clientId}</span>
        </button>
      </div>
      {client.fetching && !c ? (
        <Loading what={`client ${clientId}`} />
      ) : client.error ? (
        <Failure error={client.error} />
      ) : !c ? (
        <Empty>No such client.</Empty>
      ) : (
        <>
          <dl className="facts">
            <dt>Type</dt>
            <dd>{c.public ? 'public (no secret)' : 'confidential'}</dd>
            <dt>State</dt>
            <dd>{c.enabled ? 'enabled' : 'disabled'}</dd>
            <dt>Scopes</dt>
            <dd>{c.scopes.join(' ') || '—'}</dd>
            <dt>Created</dt>
            <dd>{when(c.createdAt)}</dd>
            <dt>Version</dt>
            <dd>{c.version}</dd>
          </dl>
          <OutcomeNote outcome={outcome} onReload={() => (setOutcome(undefined), again())} />
          {fresh && <SecretOnce label={`New client secret of ${clientId}`} secret={fresh.secret} onDone={() => setFresh(undefined)} />}
          <form
            key={c.version}
            className="inline-form"
            aria-label={`Edit ${clientId}`}
            onSubmit={(e) => {
              e.preventDefault();
              const field = fieldOf(e.currentTarget);
              void update({
                realm,
                clientId,
                version: c.version,
                input: {
                  tenantId: field('tenantId').trim() || undefined,
                  roles: commas(field('roles')),
                  redirectUris: lines(field('redirectUris')),
                  postLogoutRedirectUris: lines(field('postLogoutRedirectUris')),
                  webOrigins: lines(field('webOrigins')),
                },
              }).then((r) => after(r, `Saved ${clientId}.`));
            }}
          >
            <label className="field">
              Tenant
              <input name="tenantId" defaultValue={c.tenantId} autoComplete="off" />
            </label>
            <label className="field">
              Roles (comma-separated)
              <input name="roles" defaultValue={c.roles.join(', ')} autoComplete="off" />
            </label>
            <UriFields client={c} />
            <button type="submit" disabled={busy}>
              Save
            </button>
          </form>
          <div className="actions">
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void update({ realm, clientId, version: c.version, input: { enabled: !c.enabled } }).then((r) =>
                  after(r, c.enabled ? `${clientId} disabled; its sessions ended.` : `${clientId} enabled.`),
                )
              }
            >
              {c.enabled ? 'Disable' : 'Enable'} client
            </button>
            {!c.public && (
              <Confirm
                label="Regenerate secret"
                question={`Give ${clientId} a new secret? The old one stops working at once.`}
                yes="Regenerate"
                disabled={busy}
                onYes={() =>
                  void regenerate({ realm, clientId }).then((r) => {
                    const secret = r.data?.adminRegenerateClientSecret.clientSecret;
                    if (secret) setFresh({ clientId, secret });
                    after(r, `${clientId} has a new secret; the old one no longer works.`);
                  })
                }
              />
            )}
          </div>
        </>
      )}
    </section>
  );
}
