import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Pager } from '../ui/pager';
import { Empty, Failure, Loading } from '../ui/states';

const REALMS = `query ConsoleRealms { adminRealms(first: 200) { items { realm name enabled default } total } }`;
const USERS = `query ConsoleUsers($realm: ID!, $q: String, $after: String) {
  adminUsers(realm: $realm, q: $q, first: 25, after: $after) { items { id username email enabled locked roles version } nextCursor total }
}`;
const CREATE_USER = `mutation ConsoleCreateUser($realm: ID!, $input: AdminCreateUserInput!) {
  adminCreateUser(realm: $realm, input: $input) { id username }
}`;

interface RealmRow {
  realm: string;
  name: string;
  enabled: boolean;
  default: boolean;
}
interface UserRow {
  id: string;
  username: string;
  email: string | null;
  enabled: boolean;
  locked: boolean;
  roles: string[];
  version: number;
}

/** The realms an administrator sees (a realm administrator: its own), and each realm's users. */
export function Realms() {
  const [realms] = useQuery<{ adminRealms: { items: RealmRow[]; total: number } }>({ query: REALMS });
  const [chosen, setChosen] = useState<string>();
  if (realms.fetching) return <Loading what="realms" />;
  if (realms.error) return <Failure error={realms.error} />;
  const items = realms.data?.adminRealms.items ?? [];
  const realm = chosen ?? items.find((r) => r.default)?.realm ?? items[0]?.realm;
  return (
    <section aria-labelledby="realms-title">
      <h1 id="realms-title">Realms</h1>
      {items.length === 0 ? (
        <Empty>No realm to administer.</Empty>
      ) : (
        <>
          <label className="field">
            Realm
            <select value={realm} onChange={(e) => setChosen(e.target.value)}>
              {items.map((r) => (
                <option key={r.realm} value={r.realm}>
                  {r.name}
                  {r.enabled ? '' : ' (disabled)'}
                </option>
              ))}
            </select>
          </label>
          {realm && <Users key={realm} realm={realm} />}
        </>
      )}
    </section>
  );
}

function Users({ realm }: { realm: string }) {
  const [q, setQ] = useState('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [users, reload] = useQuery<{ adminUsers: { items: UserRow[]; nextCursor: string | null; total: number } }>({
    query: USERS,
    variables: { realm, q: q || undefined, after: cursors[cursors.length - 1] ?? undefined },
  });
  const page = users.data?.adminUsers;
  return (
    <>
      <h2>Users</h2>
      <CreateUser realm={realm} onCreated={() => reload({ requestPolicy: 'network-only' })} />
      <label className="field">
        Find a user
        <input
          type="search"
          value={q}
          onChange={(e) => {
            setQ(e.target.value);
            setCursors([null]);
          }}
        />
      </label>
      {users.fetching && !page ? (
        <Loading what="users" />
      ) : users.error ? (
        <Failure error={users.error} />
      ) : !page || page.items.length === 0 ? (
        <Empty>No user{q ? ` matches “${q}”` : ' in this realm yet'}.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Users of the realm</caption>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Email</th>
                  <th scope="col">Roles</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((u) => (
                  <tr key={u.id}>
                    <td>{u.username}</td>
                    <td>{u.email ?? '—'}</td>
                    <td>{u.roles.join(', ') || '—'}</td>
                    <td>{!u.enabled ? 'disabled' : u.locked ? 'locked' : 'active'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager cursors={cursors} next={page.nextCursor} total={page.total} shown={page.items.length} onPage={setCursors} />
        </>
      )}
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
        const form = new FormData(e.currentTarget);
        const field = (name: string) => {
          const v = form.get(name);
          return typeof v === 'string' ? v : '';
        };
        const roles = field('roles')
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
        const target = e.currentTarget;
        void create({
          realm,
          input: {
            username: field('username'),
            password: field('password'),
            roles,
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
