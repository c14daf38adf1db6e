/* global window, location, history */
// A single-page app as oidc-client-ts signs a person in: the issuer's discovery document, the
// authorization code flow with PKCE, the code exchanged from the browser (CORS), a silent renewal
// with the refresh token, and RP-initiated logout. The library is its browser bundle (global `oidc`).
import { config, onClick, show, start, whoami } from './app.js';

const { UserManager } = window.oidc;
const manager = new UserManager({
  authority: config.issuer,
  client_id: config.clientId,
  redirect_uri: config.callback,
  post_logout_redirect_uri: config.signedOut,
  response_type: 'code',
  scope: 'openid',
  automaticSilentRenew: false,
});

const user = async () => {
  const u = await manager.getUser();
  if (!u) throw new Error('no user signed in');
  return u;
};

// What the test drives and reads through page.evaluate.
window.app = {
  token: async () => (await user()).access_token,
  idToken: async () => (await user()).id_token,
  refreshToken: async () => (await user()).refresh_token,
  profile: async () => (await user()).profile,
  whoami: async () => whoami((await user()).access_token),
  /** signinSilent: with a refresh token at hand, oidc-client-ts refreshes with it (no iframe); the new access token. */
  refresh: async () => (await manager.signinSilent()).access_token,
};

onClick('sign-in', () => manager.signinRedirect());
// With state (data the app gets back), the library sends `state` and checks it on return.
onClick('sign-out', () => manager.signoutRedirect({ state: { back: config.page } }));

start(async () => {
  const here = location.pathname;
  if (here === new URL(config.signedOut).pathname) {
    // Logout came back: the state it carried must be the one the library sent.
    await manager.signoutRedirectCallback();
    show('signed-out');
    return;
  }
  if (here === new URL(config.callback).pathname) {
    await manager.signinRedirectCallback();
    history.replaceState(null, '', config.page);
  }
  const signedIn = await manager.getUser();
  // As keycloak-js's login-required: a person who is not signed in is sent to sign in.
  if (!signedIn || signedIn.expired) await manager.signinRedirect();
  else show('signed-in', { username: await whoami(signedIn.access_token) });
});
