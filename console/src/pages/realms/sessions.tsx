import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { PagedTable, SearchField, useCursors, type GraphPage } from '../../ui/paged-table';
import { OutcomeNote, when, type Outcome } from './common';
import { SESSIONS, END } from '../../operations/realms';

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
  const { cursors, setCursors, after, restart } = useCursors();
  const filter = username ?? (who.trim() || undefined);
  const [sessions, reload] = useQuery<{ adminSessions: GraphPage<SessionRow> }>({
    query: SESSIONS,
    variables: { realm, username: filter, after },
  });
  const [ending, end] = useMutation<{ adminEndSession: { sessionsEnded: number } }>(END);
  const [outcome, setOutcome] = useState<Outcome>();
  const again = () => reload({ requestPolicy: 'network-only' });
  return (
    <>
      {!username && (
        <SearchField
          label="Sessions of the user (exact username)"
          value={who}
          onChange={(v) => {
            setWho(v);
            restart();
          }}
        />
      )}
      <OutcomeNote outcome={outcome} onReload={again} />
      <PagedTable
        result={sessions}
        page={sessions.data?.adminSessions}
        what="sessions"
        empty={`No open session${filter ? ` of ${filter}` : ''}.`}
        caption={username ? `Open sessions of ${username}` : 'Open single sign-on sessions'}
        head={[!username && 'User', 'Signed in', 'Expires', 'Action']}
        cursors={cursors}
        onPage={setCursors}
        row={(s) => (
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
        )}
      />
    </>
  );
}
