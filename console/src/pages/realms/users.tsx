import { useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { PagedTable, SearchField, useCursors, type GraphPage } from '../../ui/paged-table';
import { Empty, Failure, Loading } from '../../ui/states';
import { commas, Confirm, fieldOf, OutcomeNote, when, type Outcome } from './common';
import { Sessions } from './sessions';
import { USERS, USER, CREATE_USER, UPDATE_USER, SET_PASSWORD, UNLOCK, LOGOUT } from '../../operations/realms';

interface UserRow {
  id: string;
  username: string;
  tenantId: string;
  email: string | null;
  emailVerified: boolean;
  enabled: boolean;
  locked: boolean;
  roles: string[];
  createdAt: string;
  version: number;
}

const stateOf = (u: UserRow) => (!u.enabled ? 'disabled' : u.locked ? 'locked' : 'active');
const sessionsText = (n: number | null | undefined) => `${n ?? 0} session${n === 1 ? '' : 's'}`;

/** A realm's users: a search, a page at a time, a form to create one, and one user's management. */
export function Users({ realm }: { realm: string }) {
  const [q, setQ] = useState('');
  const { cursors, setCursors, after, restart } = useCursors();
  const [chosen, setChosen] = useState<string>();
  const [users, reload] = useQuery<{ adminUsers: GraphPage<UserRow> }>({
    query: USERS,
    variables: { realm, q: q || undefined, after },
  });
  const again = () => reload({ requestPolicy: 'network-only' });
  return (
    <>
      <h2>Users</h2>
      <CreateUser realm={realm} onCreated={again} />
      <SearchField
        label="Find a user"
        value={q}
        onChange={(v) => {
          setQ(v);
          restart();
        }}
      />
      <PagedTable
        result={users}
        page={users.data?.adminUsers}
        what="users"
        empty={`No user${q ? ` matches “${q}”` : ' in this realm yet'}.`}
        caption="Users of the realm"
        head={['Username', 'Email', 'Roles', 'State', 'Action']}
        cursors={cursors}
        onPage={setCursors}
        row={(u) => (
          <tr key={u.id}>
            <td>{u.username}</td>
            <td>{u.email ?? '—'}</td>
            <td>{u.roles.join(', ') || '—'}</td>
            <td>{stateOf(u)}</td>
            <td>
              <button type="button" aria-pressed={chosen === u.username} onClick={() => setChosen(u.username)}>
                Manage<span className="visually-hidden"> {u.username}</span>
              </button>
            </td>
          </tr>
        )}
      />
      {chosen && <UserDetail key={chosen} realm={realm} username={chosen} onChanged={again} onClose={() => setChosen(undefined)} />}
    </>
  );
}

function CreateUser({ realm, onCreated }: { realm: string; onCreated: () => void }) {
  const [result, create] = useMutation<{ adminCreateUser: { username: string } }>(CREATE_USER);
  const [done, setDone] = useState<string>();
  return (
    <form
      className="inline-form"
      aria-label="Create a user"
      onSubmit={(e) => {
        e.preventDefault();
        const target = e.currentTarget;
        const field = fieldOf(target);
        void create({
          realm,
          input: {
            username: field('username'),
            password: field('password'),
            roles: commas(field('roles')),
            email: field('email') || undefined,
          },
        }).then((r) => {
          if (r.data) {
            setDone(`User ${r.data.adminCreateUser.username} created.`);
            target.reset();
            onCreated();
          }
        });
      }}
    >
      <label className="field">
        Username
        <input name="username" required autoComplete="off" />
      </label>
      <label className="field">
        Password
        <input name="password" type="password" required minLength={8} autoComplete="new-password" />
      </label>
      <label className="field">
        Email
        <input name="email" type="email" autoComplete="off" />
      </label>
      <label className="field">
        Roles (comma-separated)
        <input name="roles" autoComplete="off" />
      </label>
      <button type="submit" disabled={result.fetching}>
        Create user
      </button>
      {result.error ? <Failure error={result.error} /> : done && <p role="status">{done}</p>}
    </form>
  );
}

/**
 * One user: its facts; its roles and email (at the version read: a stale one says so); enable or
 * disable; a new password; unlock when locked; sign out everywhere; its open sessions with End.
 */
function UserDetail({
  realm,
  username,
  onChanged,
  onClose,
}: {
  realm: string;
  username: string;
  onChanged: () => void;
  onClose: () => void;
}) {
  const [user, reload] = useQuery<{ adminUser: UserRow }>({ query: USER, variables: { realm, username } });
  const [updating, update] = useMutation<{ adminUpdateUser: UserRow }>(UPDATE_USER);
  const [setting, setPassword] = useMutation<{ adminSetUserPassword: { sessionsEnded: number | null } }>(SET_PASSWORD);
  const [unlocking, unlock] = useMutation<{ adminUnlockUser: { locked: boolean } }>(UNLOCK);
  const [leaving, logout] = useMutation<{ adminLogoutUser: { sessionsEnded: number } }>(LOGOUT);
  const [outcome, setOutcome] = useState<Outcome>();
  const [sessionsKey, setSessionsKey] = useState(0);
  const again = () => reload({ requestPolicy: 'network-only' });
  /** After a change: its message (or error), the user and the list read again. */
  const after = (r: { error?: CombinedError }, ok: string) => {
    setOutcome(r.error ? { error: r.error } : { ok });
    if (!r.error) {
      again();
      onChanged();
      setSessionsKey((k) => k + 1);
    }
  };
  const u = user.data?.adminUser;
  const busy = updating.fetching || setting.fetching || unlocking.fetching || leaving.fetching;
  return (
    <section className="detail" aria-labelledby="user-detail-title">
      <div className="detail-head">
        <h3 id="user-detail-title">User {username}</h3>
        <button type="button" onClick={onClose}>
          Close<span className="visually-hidden"> user {username}</span>
        </button>
      </div>
      {user.fetching && !u ? (
        <Loading what={`user ${username}`} />
      ) : user.error ? (
        <Failure error={user.error} />
      ) : !u ? (
        <Empty>No such user.</Empty>
      ) : (
        <>
          <dl className="facts">
            <dt>State</dt>
            <dd>{stateOf(u)}</dd>
            <dt>Email</dt>
            <dd>{u.email ? `${u.email}${u.emailVerified ? ' (verified)' : ' (not verified)'}` : '—'}</dd>
            <dt>Tenant</dt>
            <dd>{u.tenantId}</dd>
            <dt>Created</dt>
            <dd>{when(u.createdAt)}</dd>
            <dt>Version</dt>
            <dd>{u.version}</dd>
          </dl>
          <OutcomeNote outcome={outcome} onReload={() => (setOutcome(undefined), again())} />
          <form
            key={u.version}
            className="inline-form"
            aria-label={`Edit ${username}`}
            onSubmit={(e) => {
              e.preventDefault();
              const field = fieldOf(e.currentTarget);
              const email = field('email').trim();
              void update({
                realm,
                username,
                version: u.version,
                input: { roles: commas(field('roles')), email: email || null },
              }).then((r) => after(r, `Saved ${username}.`));
            }}
          >
            <label className="field">
              Roles (comma-separated)
              <input name="roles" defaultValue={u.roles.join(', ')} autoComplete="off" />
            </label>
            <label className="field">
              Email
              <input name="email" type="email" defaultValue={u.email ?? ''} autoComplete="off" />
            </label>
            <button type="submit" disabled={busy}>
              Save
            </button>
          </form>
          <div className="actions">
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void update({ realm, username, version: u.version, input: { enabled: !u.enabled } }).then((r) =>
                  after(r, u.enabled ? `${username} disabled; their sessions ended.` : `${username} enabled.`),
                )
              }
            >
              {u.enabled ? 'Disable' : 'Enable'} user
            </button>
            {u.locked && (
              <button
                type="button"
                disabled={busy}
                onClick={() => void unlock({ realm, username }).then((r) => after(r, `${username} unlocked.`))}
              >
                Unlock
              </button>
            )}
            <Confirm
              label="Sign out everywhere"
              question={`End every session of ${username}?`}
              yes="Sign out"
              disabled={busy}
              onYes={() =>
                void logout({ realm, username }).then((r) =>
                  after(r, `${username} signed out everywhere: ${sessionsText(r.data?.adminLogoutUser.sessionsEnded)} ended.`),
                )
              }
            />
          </div>
          <form
            className="inline-form"
            aria-label={`Reset the password of ${username}`}
            onSubmit={(e) => {
              e.preventDefault();
              const target = e.currentTarget;
              const password = fieldOf(target)('password');
              void setPassword({ realm, username, password }).then((r) => {
                if (!r.error) target.reset();
                after(r, `New password set for ${username}; ${sessionsText(r.data?.adminSetUserPassword.sessionsEnded)} ended.`);
              });
            }}
          >
            <label className="field">
              New password
              <input name="password" type="password" required minLength={8} autoComplete="new-password" />
            </label>
            <button type="submit" disabled={busy}>
              Set password
            </button>
          </form>
          <h4>Sessions</h4>
          <Sessions key={sessionsKey} realm={realm} username={username} />
        </>
      )}
    </section>
  );
}
