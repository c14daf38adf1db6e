import { useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { Empty, Failure, Loading } from '../ui/states';
import { TabPanel, Tabs } from '../ui/tabs';
import type { PageProps } from './registry';
import { Clients } from './realms/clients';
import { fieldOf, OutcomeNote, type Outcome } from './realms/common';
import { Sessions } from './realms/sessions';
import { Users } from './realms/users';
import { REALMS, CREATE_REALM, UPDATE_REALM } from '../operations/realms';

interface RealmRow {
  realm: string;
  name: string;
  enabled: boolean;
  accessTokenLifespan: number;
  refreshTokenLifespan: number;
  default: boolean;
  version: number;
}

const TABS = [
  { id: 'users', title: 'Users' },
  { id: 'clients', title: 'Clients' },
  { id: 'sessions', title: 'Sessions' },
] as const;
type Tab = (typeof TABS)[number]['id'];

/**
 * The realms an administrator sees (a realm administrator: its own; a platform administrator may
 * create one and change its settings), and in the realm chosen, its users, clients and sessions.
 */
export function Realms({ platform }: PageProps) {
  const [realms, reload] = useQuery<{ adminRealms: { items: RealmRow[]; total: number } }>({ query: REALMS });
  const [chosen, setChosen] = useState<string>();
  const [tab, setTab] = useState<Tab>('users');
  if (realms.fetching && !realms.data) return <Loading what="realms" />;
  if (realms.error) return <Failure error={realms.error} />;
  const items = realms.data?.adminRealms.items ?? [];
  const current = items.find((r) => r.realm === chosen) ?? items.find((r) => r.default) ?? items[0];
  const again = () => reload({ requestPolicy: 'network-only' });
  return (
    <section aria-labelledby="realms-title">
      <h1 id="realms-title">Realms</h1>
      {platform && (
        <CreateRealm
          onCreated={(id) => {
            setChosen(id);
            again();
          }}
        />
      )}
      {!current ? (
        <Empty>No realm to administer.</Empty>
      ) : (
        <>
          <label className="field">
            Realm
            <select value={current.realm} onChange={(e) => setChosen(e.target.value)}>
              {items.map((r) => (
                <option key={r.realm} value={r.realm}>
                  {r.name}
                  {r.enabled ? '' : ' (disabled)'}
                </option>
              ))}
            </select>
          </label>
          <Settings key={`${current.realm}:${current.version}`} realm={current} platform={platform} onChanged={again} />
          <Tabs tabs={TABS} tab={tab} onTab={setTab} label="Parts of the realm" prefix="realm" />
          <TabPanel prefix="realm" id={tab}>
            {tab === 'users' && <Users key={current.realm} realm={current.realm} />}
            {tab === 'clients' && <Clients key={current.realm} realm={current.realm} />}
            {tab === 'sessions' && (
              <>
                <h2>Sessions</h2>
                <Sessions key={current.realm} realm={current.realm} />
              </>
            )}
          </TabPanel>
        </>
      )}
    </section>
  );
}

function CreateRealm({ onCreated }: { onCreated: (id: string) => void }) {
  const [result, create] = useMutation<{ adminCreateRealm: RealmRow }>(CREATE_REALM);
  const [done, setDone] = useState<string>();
  return (
    <form
      className="inline-form"
      aria-label="Create a new one"
      onSubmit={(e) => {
        e.preventDefault();
        const target = e.currentTarget;
        const name = fieldOf(target)('name').trim();
        void create({ input: { name } }).then((r) => {
          const made = r.data?.adminCreateRealm;
          if (!made) return;
          setDone(`Created ${made.name}.`);
          target.reset();
          onCreated(made.realm);
        });
      }}
    >
      <label className="field">
        Name of a new one
        <input name="name" required autoComplete="off" />
      </label>
      <button type="submit" disabled={result.fetching}>
        Create
      </button>
      {result.error ? <Failure error={result.error} /> : done && <p role="status">{done}</p>}
    </form>
  );
}

/** The realm's settings: read by everyone here, changed (at the version read) by platform administrators. */
function Settings({ realm, platform, onChanged }: { realm: RealmRow; platform: boolean; onChanged: () => void }) {
  const [result, update] = useMutation<{ adminUpdateRealm: RealmRow }>(UPDATE_REALM);
  const [outcome, setOutcome] = useState<Outcome>();
  const after = (r: { error?: CombinedError }, ok: string) => {
    setOutcome(r.error ? { error: r.error } : { ok });
    if (!r.error) onChanged();
  };
  const facts = (
    <dl className="facts">
      <dt>Id</dt>
      <dd>{realm.realm}</dd>
      <dt>State</dt>
      <dd>
        {realm.enabled ? 'enabled' : 'disabled'}
        {realm.default ? ', the default' : ''}
      </dd>
      <dt>Access tokens live</dt>
      <dd>{realm.accessTokenLifespan} s</dd>
      <dt>Refresh tokens live</dt>
      <dd>{realm.refreshTokenLifespan} s</dd>
    </dl>
  );
  if (!platform) return facts;
  return (
    <details className="settings">
      <summary>Settings of {realm.name}</summary>
      {facts}
      <OutcomeNote outcome={outcome} onReload={() => (setOutcome(undefined), onChanged())} />
      <form
        className="inline-form"
        aria-label={`Settings of ${realm.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          const field = fieldOf(e.currentTarget);
          void update({
            realm: realm.realm,
            version: realm.version,
            input: {
              name: field('name').trim(),
              accessTokenLifespan: Number(field('access')),
              refreshTokenLifespan: Number(field('refresh')),
            },
          }).then((r) => after(r, 'Settings saved.'));
        }}
      >
        <label className="field">
          Name
          <input name="name" required defaultValue={realm.name} autoComplete="off" />
        </label>
        <label className="field">
          Access token lifespan (seconds)
          <input name="access" type="number" min={1} required defaultValue={realm.accessTokenLifespan} />
        </label>
        <label className="field">
          Refresh token lifespan (seconds)
          <input name="refresh" type="number" min={1} required defaultValue={realm.refreshTokenLifespan} />
        </label>
        <button type="submit" disabled={result.fetching}>
          Save settings
        </button>
      </form>
      <button
        type="button"
        disabled={result.fetching || realm.default}
        onClick={() =>
          void update({ realm: realm.realm, version: realm.version, input: { enabled: !realm.enabled } }).then((r) =>
            after(r, realm.enabled ? `${realm.name} disabled; its sessions ended.` : `${realm.name} enabled.`),
          )
        }
      >
        {realm.enabled ? 'Disable' : 'Enable'} {realm.name}
      </button>
    </details>
  );
}
