/* global window, location */
// A single-page app as Keycloak's own adapter, keycloak-js, signs a person in: the authorization
// code flow with PKCE (S256), the login page of the realm, the code exchanged at the token endpoint
// from the browser (CORS), refresh with the refresh token, and RP-initiated logout.
import Keycloak from 'keycloak-js';
import { config, onClick, show, start, whoami } from './app.js';

const kc = new Keycloak({ url: config.authServerUrl, realm: config.realm, clientId: config.clientId });

// What the test drives and reads through page.evaluate.
window.app = {
  token: () => kc.token,
  idToken: () => kc.idToken,
  refreshToken: () => kc.refreshToken,
  whoami: () => whoami(kc.token),
  /** A refresh whatever the token's age (-1), then the new access token. */
  refresh: async () => {
    await kc.updateToken(-1);
    return kc.token;
  },
};

onClick('sign-out', () => kc.logout({ redirectUri: config.signedOut }));
onClick('sign-in', () => kc.login({ redirectUri: config.page }));

start(async () => {
  if (location.pathname === new URL(config.signedOut).pathname) {
    // Where logout comes back: no sign-in here, only the button.
    await kc.init({ pkceMethod: 'S256', checkLoginIframe: false });
    show('signed-out');
    return;
  }
  const authenticated = await kc.init({
    onLoad: 'login-required',
    pkceMethod: 'S256',
    checkLoginIframe: false,
    redirectUri: config.redirectUri,
  });
  if (!authenticated) show('signed-out');
  else show('signed-in', { username: await whoami(kc.token) });
});
