/* global window, document */
// What both apps share: their settings (a JSON script element the test's server writes), the page's
// state for the test to read (#status data-state, #signed-in-as, #error), and the call to /graphql
// with the access token, from the app's own origin (CORS).

export const config = JSON.parse(document.getElementById('config').textContent);

/** Shows where the app stands: `signed-in` (with the username /graphql gave), `signed-out` or `error`. */
export function show(state, { username = '', error = '' } = {}) {
  const status = document.getElementById('status');
  status.dataset.state = state;
  status.textContent = state;
  document.getElementById('signed-in-as').textContent = username;
  document.getElementById('error').textContent = error;
}

/** Runs the app's start; a failure shows as the `error` state with its message, for the test to report. */
export function start(run) {
  run().catch((err) => show('error', { error: `${err?.name ?? 'Error'}: ${err?.message ?? String(err)}\n${err?.stack ?? ''}` }));
}

/** The button `id` runs `action`; a failure shows as the `error` state. */
export function onClick(id, action) {
  document.getElementById(id).addEventListener('click', () => start(async () => action()));
}

/** `query { viewer { username } }` at /graphql with the bearer token: the username, or an Error saying what came back. */
export async function whoami(token) {
  const res = await window.fetch(config.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'query { viewer { username } }' }),
  });
  const text = await res.text();
  let username;
  try {
    username = JSON.parse(text)?.data?.viewer?.username;
  } catch {
    username = undefined;
  }
  if (!username) throw new Error(`/graphql answered ${res.status}: ${text.slice(0, 500)}`);
  return username;
}
