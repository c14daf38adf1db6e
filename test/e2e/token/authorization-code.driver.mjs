// Drives openid-client 6 (ESM-only, so it runs in its own node process; jest cannot load it) through
// the authorization code flow with PKCE against a started platform, as a server-side web app does:
// the library discovers the issuer, builds the authorization URL; this script plays the person's
// browser (it fetches the login page, posts the form with the cookies the server set, follows the
// 302 to the redirect URI) and hands the URL it came back to to the library, which exchanges the code.
// Reads its inputs as JSON from argv[2]; prints what it saw as JSON.
import * as client from 'openid-client-6';

const input = JSON.parse(process.argv[2]);
const insecure = { execute: [client.allowInsecureRequests] };

/** What a failure looked like to the caller: the library's error and, for an HTTP answer, its status. */
async function failure(promise) {
  try {
    await promise;
    return { failed: false };
  } catch (err) {
    const response = err.cause instanceof Response ? err.cause : undefined;
    return { failed: true, name: err.name, code: err.code, error: err.error, message: err.message, status: err.status ?? response?.status };
  }
}

/** The cookies a browser would keep for the platform's origin (one origin here: no paths or domains to tell apart). */
class Jar {
  cookies = new Map();
  /** Every Set-Cookie the server sent, as sent. */
  set = [];
  take(res) {
    for (const line of res.headers.getSetCookie()) {
      this.set.push(line);
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age\s*=\s*(0|-\d+)\s*$/i.test(a) || /^\s*expires\s*=.*1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** One request as the browser makes it (no redirect followed), its cookies kept. */
async function browse(jar, url, init = {}) {
  const headers = { ...init.headers };
  if (jar.cookies.size) headers.cookie = jar.header();
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.take(res);
  const text = await res.text();
  return {
    url: String(url),
    status: res.status,
    location: res.headers.get('location') ?? undefined,
    contentType: res.headers.get('content-type') ?? undefined,
    headers: Object.fromEntries(res.headers),
    setCookies: res.headers.getSetCookie(),
    text,
  };
}

const ENTITIES = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
const decode = (s) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, e) =>
    e[0] === '#'
      ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : (ENTITIES[e] ?? whole),
  );
const attributes = (tag) =>
  Object.fromEntries(
    [...tag.matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)]
      .slice(1)
      .map(([, k, a, b, c]) => [k.toLowerCase(), decode(a ?? b ?? c ?? '')]),
  );

/** The login form of a page (#kc-form-login): where it posts and what it sends besides what the person types. */
function loginForm(page) {
  const form = /<form\b[^>]*\bid\s*=\s*["']?kc-form-login\b[^>]*>([\s\S]*?)<\/form>/i.exec(page.text);
  if (!form) throw new Error(`no #kc-form-login on the page (${page.status} ${page.contentType}): ${page.text.slice(0, 500)}`);
  const tag = attributes(/<form\b[^>]*>/i.exec(form[0])[0]);
  const fields = new URLSearchParams();
  for (const [input] of form[1].matchAll(/<input\b[^>]*>/gi)) {
    const a = attributes(input);
    if (
      a.name &&
      !['submit', 'button', 'image', 'reset'].includes(a.type) &&
      !(['checkbox', 'radio'].includes(a.type) && !('checked' in a))
    )
      fields.set(a.name, a.value ?? '');
  }
  // The submit button, when it has a name, is sent as a browser sends it.
  const button = [...form[1].matchAll(/<button\b[^>]*>/gi)].map(([b]) => attributes(b)).find((b) => b.id === 'kc-login');
  if (button?.name) fields.set(button.name, button.value ?? '');
  return { action: new URL(tag.action || page.url, page.url), method: (tag.method || 'get').toLowerCase(), fields };
}

/** The library's authorization URL for a new login (fresh PKCE verifier, state and nonce), and the first answer to it. */
async function authorize(config, jar, redirectUri, extra = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const checks = { pkceCodeVerifier: verifier, expectedState: client.randomState(), expectedNonce: client.randomNonce() };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
    ...extra,
  });
  return { url: url.href, checks, page: await browse(jar, url) };
}

/** Types the credentials into the page's login form and submits it. */
async function signIn(jar, page, username, password) {
  const form = loginForm(page);
  form.fields.set('username', username);
  form.fields.set('password', password);
  const posted = await browse(jar, form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.fields.toString(),
  });
  return { form: { action: form.action.href, method: form.method, fields: [...form.fields.keys()] }, posted };
}

/** Follows the redirect to the app (the test's server behind the redirect URI), then has the library exchange the code. */
async function exchange(config, location, checks, extra) {
  const arrived = await fetch(location, { redirect: 'manual' });
  await arrived.arrayBuffer();
  const tokens = await client.authorizationCodeGrant(config, new URL(location), { ...checks, idTokenExpected: true, ...extra });
  return { arrivedStatus: arrived.status, tokens: { ...tokens }, claims: tokens.claims() };
}

const strip = (page) => ({ ...page, text: page.text.slice(0, 2000) });

/** What the steps saw; a step that throws ends the run, recorded as `error` (the test says which step failed, and how). */
async function flows(input) {
  const out = {};
  try {
    await steps(input, out);
  } catch (err) {
    out.error = { ...(await failure(Promise.reject(err))), stack: err.stack };
  }
  return out;
}

async function steps({ issuer, clientId, clientSecret, redirectUri, username, password }, out) {
  const auth = clientSecret ? client.ClientSecretBasic(clientSecret) : client.None();
  const config = await client.discovery(new URL(issuer), clientId, undefined, auth, insecure);
  out.metadata = config.serverMetadata();
  const jar = new Jar();

  // The person signs in: the login page, the form posted, the redirect to the app with the code.
  const first = await authorize(config, jar, redirectUri, { max_age: '600' });
  out.authorizationUrl = first.url;
  out.loginPage = strip(first.page);
  const login = await signIn(jar, first.page, username, password);
  out.form = login.form;
  out.afterLogin = strip(login.posted);
  out.cookiesSet = jar.set;
  if (login.posted.status !== 302 || !login.posted.location) return;
  out.code = await exchange(config, login.posted.location, first.checks, { maxAge: 600 });
  out.sentNonce = first.checks.expectedNonce;
  out.sentState = first.checks.expectedState;

  out.refreshed = { ...(await client.refreshTokenGrant(config, out.code.tokens.refresh_token)) };

  // Single sign-on: the browser's session cookie signs the person in again without the form...
  const again = await authorize(config, jar, redirectUri);
  out.sso = { page: strip(again.page) };
  if (again.page.status === 302 && again.page.location) out.sso.code = await exchange(config, again.page.location, again.checks);
  // ...unless the app asks for the password again (prompt=login).
  out.promptLogin = strip((await authorize(config, jar, redirectUri, { prompt: 'login' })).page);

  // Another browser signs in; its code used twice is refused, and what the first use issued is revoked.
  const other = new Jar();
  const fresh = await authorize(config, other, redirectUri);
  const signedIn = await signIn(other, fresh.page, username, password);
  if (signedIn.posted.status === 302 && signedIn.posted.location) {
    const used = await exchange(config, signedIn.posted.location, fresh.checks);
    out.codeReused = await failure(
      client.authorizationCodeGrant(config, new URL(signedIn.posted.location), { ...fresh.checks, idTokenExpected: true }),
    );
    out.refreshAfterReuse = await failure(client.refreshTokenGrant(config, used.tokens.refresh_token));
  }
}

const scenarios = { flows };
process.stdout.write(JSON.stringify(await scenarios[input.scenario](input)));
