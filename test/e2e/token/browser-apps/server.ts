import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * The small single-page apps of the browser sign-in tests, each on an origin of its own
 * (http://127.0.0.1:<port>, a secure context, so the libraries have Web Crypto for PKCE), served as
 * a frontend team would serve them without a bundler: the libraries' own browser builds from
 * node_modules (keycloak-js, an ES module, through an import map; oidc-client-ts's browser bundle,
 * a global `oidc`), and a page script per library that signs in, calls /graphql with the token,
 * refreshes and signs out (keycloak-app.js, oidc-app.js, with app.js shared).
 *
 * An app lives under `/<name>/`: the page itself, `/<name>/callback` (where the authorization
 * server sends the code back: the same page, which sees where it is) and `/<name>/signed-out`
 * (where logout comes back). Its settings reach the page in a JSON script element.
 */

export type Library = 'keycloak' | 'oidc';

export interface AppSettings {
  library: Library;
  /** Keycloak's "server URL": `<PUBLIC_URL>/auth/api/v1`. */
  authServerUrl: string;
  /** The realm as keycloak-js names it (id or name). */
  realm: string;
  /** The realm's issuer: oidc-client-ts's authority. */
  issuer: string;
  clientId: string;
  /** `<PUBLIC_URL>/graphql`. */
  graphqlUrl: string;
}

export interface BrowserApps {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The URLs of app `name`, as its client registers them. */
  urls(name: string): { page: string; callback: string; signedOut: string };
  close(): Promise<void>;
}

const NODE_MODULES = join(__dirname, '..', '..', '..', '..', 'node_modules');

/** Files by URL path: the libraries' browser builds and the page scripts. */
const FILES: Record<string, string> = {
  '/lib/keycloak.js': join(NODE_MODULES, 'keycloak-js', 'lib', 'keycloak.js'),
  '/lib/oidc-client-ts.js': join(NODE_MODULES, 'oidc-client-ts', 'dist', 'browser', 'oidc-client-ts.js'),
  '/app/app.js': join(__dirname, 'app.js'),
  '/app/keycloak-app.js': join(__dirname, 'keycloak-app.js'),
  '/app/oidc-app.js': join(__dirname, 'oidc-app.js'),
};

const TITLES: Record<Library, string> = { keycloak: 'keycloak-js app', oidc: 'oidc-client-ts app' };

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function page(name: string, settings: AppSettings, urls: ReturnType<BrowserApps['urls']>): string {
  const config = { name, ...settings, redirectUri: settings.library === 'keycloak' ? urls.page : urls.callback, ...urls };
  const library =
    settings.library === 'keycloak'
      ? '<script type="importmap">{"imports":{"keycloak-js":"/lib/keycloak.js"}}</script>'
      : '<script src="/lib/oidc-client-ts.js"></script>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${TITLES[settings.library]}: ${name}</title>
<script id="config" type="application/json">${scriptJson(config)}</script>
${library}
<script type="module" src="/app/${settings.library}-app.js"></script>
</head>
<body>
<main>
<h1>${TITLES[settings.library]}: ${name}</h1>
<p>State: <output id="status" data-state="loading">loading</output></p>
<p>Signed in as: <output id="signed-in-as"></output></p>
<pre id="error"></pre>
<button id="sign-in" type="button">Sign in</button>
<button id="sign-out" type="button">Sign out</button>
</main>
</body>
</html>
`;
}

/** Starts the apps named in `apps` on one origin (a free port of 127.0.0.1). */
export async function startBrowserApps(apps: Record<string, AppSettings>): Promise<BrowserApps> {
  let origin = '';
  const urls = (name: string) => ({
    page: `${origin}/${name}/`,
    callback: `${origin}/${name}/callback`,
    signedOut: `${origin}/${name}/signed-out`,
  });
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    const file = FILES[path];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
    } else if (file) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(readFileSync(file));
    } else {
      const [, name, rest] = /^\/([\w-]+)\/(|callback|signed-out)$/.exec(path) ?? [];
      const settings = name === undefined ? undefined : apps[name];
      if (!settings) res.writeHead(404, { 'content-type': 'text/plain' }).end(`no app at ${path} (${rest ?? ''})`);
      else
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end(page(name, settings, urls(name)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
