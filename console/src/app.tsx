import { useEffect, useState, useSyncExternalStore } from 'react';
import { Provider } from 'urql';
import { session, type Person } from './auth/session';
import { client } from './graphql/client';
import { PAGES, type PageEntry } from './pages/registry';

const subscribe = (listener: () => void) => session.subscribe(listener);
const current = () => session.get();

/**
 * Pages are chosen by the address's fragment (`#/realms`): the page itself stays /console/, its one
 * registered redirect URI.
 */

function useRoute(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/**
 * The page a route shows, and what follows its path (`#/documents/<id>` opens Documents with
 * `<id>`). The overview (`#/`) matches only itself; an unknown route shows the first page.
 */
function pageOf(pages: PageEntry[], route: string): [PageEntry, string] {
  for (const p of pages) {
    if (route === p.path) return [p, ''];
    if (p.path !== '#/' && route.startsWith(`${p.path}/`)) return [p, route.slice(p.path.length + 1)];
  }
  return [pages[0], ''];
}

export function App() {
  const state = useSyncExternalStore(subscribe, current);
  if (state.status === 'working')
    return (
      <main id="main" className="centered">
        <p role="status">{state.message}</p>
      </main>
    );
  if (state.status === 'signed-out') return <SignIn error={state.error} notice={state.notice} />;
  return (
    <Provider value={client}>
      <Shell person={state.person} />
    </Provider>
  );
}

function SignIn({ error, notice }: { error?: string; notice?: string }) {
  const [realm, setRealm] = useState(session.realm());
  return (
    <main id="main" className="centered">
      <h1>Platform console</h1>
      <form
        className="sign-in"
        onSubmit={(e) => {
          e.preventDefault();
          void session.signIn(realm);
        }}
      >
        <label className="field">
          Realm
          <input value={realm} onChange={(e) => setRealm(e.target.value)} autoComplete="off" />
        </label>
        <button type="submit">Sign in</button>
      </form>
      {error && (
        <p className="state error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p className="state" role="status">
          {notice}
        </p>
      )}
    </main>
  );
}

function Shell({ person }: { person: Person }) {
  const route = useRoute();
  const platform = person.roles.includes('platform-admin');
  const admin = platform || person.roles.includes('realm-admin');
  const pages = PAGES.filter((p) => p.audience === 'everyone' || (p.audience === 'admin' ? admin : platform));
  const [current, rest] = pageOf(pages, route);
  useEffect(() => {
    document.title = `${current.title} - Platform console`;
  }, [current]);
  return (
    <>
      <a
        className="skip"
        href="#main"
        onClick={(e) => {
          // The fragment chooses the page: moving the focus must not change it.
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Platform console</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <a href={p.path} aria-current={p === current ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">{person.username}</span>
        <button type="button" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <current.component person={person} admin={admin} platform={platform} rest={rest} />
      </main>
    </>
  );
}
