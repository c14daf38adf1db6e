import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Pager } from '../../ui/pager';
import { Empty, Failure, Loading } from '../../ui/states';
import { OutcomeNote, when, type Outcome } from './common';

const SESSIONS = `query ConsoleSessions($realm: ID!, $username: String, $after: String) {
  adminSessions(realm: $realm, username: $username, first: 25, after: $after, sort: "-createdAt") {
    items { id username authTime createdAt expiresAt } nextCursor total
  }
}`;
const END = `mutation ConsoleEndSession($realm: ID!, $id: ID!) { adminEndSession(realm: $realm, id: $id) { id sessionsEnded } }`;

interface SessionRow {
  id: string;
  username: string;
  authTime: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * A realm's open single sign-on sessions (or one user's: `username`), a page at a time, each with
 * End. (Give it a new `key` to read them again, after a sign-out everywhere, say.)
 */
export function Sessions({ realm, username }: { realm: string; username?: string }) {
  const [who, setWho] = useState('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const filter = username ?? (who.trim() || undefined);
  const [sessions, reload] = useQuery<{ adminSessions: { items: SessionRow[]; nextCursor: string | null; total: number } }>({
    query: SESSIONS,
    variables: { realm, username: filter, after: cursors[cursors.length - 1] ?? undefined },
  });
  const [ending, end] = useMutation<{ adminEndSession: { sessionsEnded: number } }>(END);
  const [outcome, setOutcome] = useState<Outcome>();
  const page = sessions.data?.adminSessions;
  const again = () => reload({ requestPolicy: 'network-only' });
  const caption = username ? `Open sessions of ${username}` : 'Open single sign-on sessions';
  return (
    <>
      {!username && (
        <label className="field">
          Sessions of the user (exact username)
          <input
            type="search"
            value={who}
            onChange={(e) => {
              setWho(e.target.value);
              setCursors([null]);
            }}
          />
        </label>
      )}
      <OutcomeNote outcome={outcome} onReload={again} />
      {sessions.fetching && !page ? (
        <Loading what="sessions" />
      ) : sessions.error ? (
        <Failure error={sessions.error} />
      ) : !page || page.items.length === 0 ? (
        <Empty>No open session{filter ? ` of ${filter}` : ''}.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">{caption}</caption>
              <thead>
                <tr>
                  {!username && <th scope="col">User</th>}
                  <th scope="col">Signed in</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((s) => (
                  <tr key={s.id}>
                    {!username && <td>{s.username}</td>}
                    <td>{when(s.authTime)}</td>
                    <td>{when(s.expiresAt)}</td>
                    <td>
                      <button
                        type="button"
                        disabled={ending.fetching}
                        onClick={() =>
                          void end({ realm, id: s.id }).then((r) => {
                            setOutcome(r.error ? { error: r.error } : { ok: `Session of ${s.username} ended.` });
                            again();
                          })
                        }
                      >
                        End
                        <span className="visually-hidden">
                          {' '}
                          the session of {s.username} signed in at {when(s.authTime)}
                        </span>
                      </button>
                    </td>
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
