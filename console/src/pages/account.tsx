import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { session } from '../auth/session';
import { Confirm, OutcomeNote, when, type Outcome } from '../ui/actions';
import { PagedTable, useCursors, type GraphPage } from '../ui/paged-table';
import { SESSIONS, END, END_ALL } from '../operations/account';

/**
 * My sessions (docs/console.md): where the person is signed in, each single sign-on session a
 * browser of theirs opened on the login page, this one marked; End on each, and Sign out
 * everywhere after a confirmation. Ending this browser's own session (or all of them) signs the
 * console out at once, saying so: its tokens stopped working with it.
 */

interface SessionRow {
  id: string;
  authTime: string;
  createdAt: string;
  expiresAt: string;
  current: boolean;
}

const ended = (n: number | undefined) => `${n ?? 0} session${n === 1 ? '' : 's'}`;

export function Account() {
  const { cursors, setCursors, after } = useCursors();
  const [sessions, reload] = useQuery<{ viewer: { sessions: GraphPage<SessionRow> } | null }>({ query: SESSIONS, variables: { after } });
  const [ending, end] = useMutation<{ endViewerSession: number }>(END);
  const [endingAll, endAll] = useMutation<{ endViewerSessions: number }>(END_ALL);
  const [outcome, setOutcome] = useState<Outcome>();
  const busy = ending.fetching || endingAll.fetching;
  const again = () => reload({ requestPolicy: 'network-only' });

  const endOne = (s: SessionRow) =>
    void end({ id: s.id }).then((r) => {
      if (!r.error && s.current) return session.ended("You ended this browser's session: sign in again to go on.");
      setOutcome(r.error ? { error: r.error } : { ok: `Session of ${when(s.authTime)} ended.` });
      again();
    });

  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">My sessions</h1>
      <p>
        Each browser you signed in with on the login page. Ending one signs that browser out: every application&apos;s tokens from it stop
        working at once.
      </p>
      <div className="actions">
        <Confirm
          label="Sign out everywhere"
          question="End every session of yours, this browser's too?"
          yes="Sign out everywhere"
          disabled={busy}
          onYes={() =>
            void endAll({}).then((r) => {
              if (r.error) setOutcome({ error: r.error });
              else session.ended(`You signed out everywhere: ${ended(r.data?.endViewerSessions)} ended. Sign in again to go on.`);
            })
          }
        />
      </div>
      <OutcomeNote outcome={outcome} onReload={again} />
      <PagedTable
        result={sessions}
        page={sessions.data?.viewer?.sessions}
        what="your sessions"
        empty="No open session: you signed in without the login page."
        caption="Your open sessions"
        head={['Where', 'Signed in', 'Expires', 'Action']}
        cursors={cursors}
        onPage={setCursors}
        row={(s) => (
          <tr key={s.id}>
            <td>{s.current ? <strong>This browser</strong> : 'Another browser'}</td>
            <td>{when(s.authTime)}</td>
            <td>{when(s.expiresAt)}</td>
            <td>
              {s.current ? (
                <Confirm
                  label={
                    <>
                      End<span className="visually-hidden"> this browser&apos;s session</span>
                    </>
                  }
                  question="End this browser's session? You will be signed out."
                  yes="End it"
                  disabled={busy}
                  onYes={() => endOne(s)}
                />
              ) : (
                <button type="button" disabled={busy} onClick={() => endOne(s)}>
                  End<span className="visually-hidden"> the session signed in at {when(s.authTime)}</span>
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
