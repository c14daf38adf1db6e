/**
 * `npm run bench:sign-in`: a person's next sign-in to an app once they are signed in (single
 * sign-on): the authorization request answered at once with a code, then the code exchanged with
 * its PKCE verifier for tokens and an ID token. The platform against node-oidc-provider
 * (bench/token/sign-in-peer.mjs), each alone on the machine while measured, in this run.
 *
 * Each of BENCH_CONNECTIONS (10) workers is one browser: it signs in once (the platform's login
 * form with the demo user; the peer's interaction route, which signs its user in at once), then
 * repeats round trips (authorize with its cookies → 302/303 with a code → token endpoint) for
 * BENCH_SECONDS (10) after BENCH_WARMUP_SECONDS (2, discarded). Every answer is checked (a code in
 * the redirect; 200 with an access token and an ID token). The platform runs WORKERS=1 unless set,
 * as the peer is one process. CPU: the server's processes' user + system time per round trip.
 * Needs `npm run build` first. Exits 1 when any round trip failed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { treeCpuSeconds } from '../shared/cpu';
import { markdownTable, fixed, whole } from '../shared/progress';
import { freePort, killAllSync, startChild, stopAll, stopChild, waitHealthy, type Child } from '../shared/procs';
import { intEnv, loadAverage } from '../shared/settings';

const ROOT = resolve(__dirname, '..', '..', '..');
const PLATFORM_JS = join('dist', 'bin', 'platform.js');
const REDIRECT_URI = 'http://127.0.0.1:9/cb';
const CLIENT_ID = 'bench-spa';

/** One browser's cookies (names and values; paths and expiry left to the server's clearing). */
class Jar {
  private cookies = new Map<string, string>();
  header = () => [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  keep(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(c);
      if (expired || !value) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

interface Site {
  name: string;
  child: Child;
  base: string;
  authorizeEndpoint: string;
  tokenEndpoint: string;
  /** Signs a new browser in (once, before its round trips). */
  signIn(jar: Jar): Promise<void>;
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const authorizeUrl = (site: Site, challenge: string) =>
  `${site.authorizeEndpoint}?${new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;

/** Follows the browser's redirects (its cookies kept) until one goes to the app; returns the code there. */
async function codeFrom(site: Site, jar: Jar, url: string, first?: Response): Promise<string> {
  let res = first ?? (await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } }));
  for (let hops = 0; ; hops++) {
    jar.keep(res);
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (!location) throw new Error(`${site.name}: ${res.status} without a redirect`);
    const next = new URL(location, site.base);
    if (next.href.startsWith(REDIRECT_URI)) {
      const code = next.searchParams.get('code');
      if (!code) throw new Error(`${site.name}: back to the app without a code: ${next.search.slice(0, 200)}`);
      return code;
    }
    if (hops >= 5) throw new Error(`${site.name}: more than 5 redirects`);
    res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header() } });
  }
}

/** One sign-in of a signed-in browser: a code at once, then tokens with an ID token. */
async function roundTrip(site: Site, jar: Jar): Promise<void> {
  const { verifier, challenge } = pkce();
  const code = await codeFrom(site, jar, authorizeUrl(site, challenge));
  const res = await fetch(site.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: verifier,
    }),
  });
  const body = (await res.json()) as { access_token?: string; id_token?: string; error_description?: string };
  if (res.status !== 200 || !body.access_token || !body.id_token)
    throw new Error(`${site.name}: token ${res.status} ${body.error_description ?? ''}`);
}

interface Measured {
  name: string;
  trips: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuMs?: number;
  errors: string[];
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

/** `workers` signed-in browsers doing round trips for `seconds`. */
async function load(site: Site, jars: Jar[], seconds: number): Promise<Omit<Measured, 'name' | 'cpuMs'>> {
  const times: number[] = [];
  const errors: string[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    jars.map(async (jar) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await roundTrip(site, jar);
          times.push(performance.now() - t);
        } catch (err) {
          if (errors.length < 5) errors.push((err as Error).message);
          else errors.push('');
        }
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { trips: times.length, perSecond: times.length / seconds, p50: pct(times, 50), p99: pct(times, 99), errors };
}

async function measure(site: Site, connections: number, seconds: number, warmup: number): Promise<Measured> {
  const jars = Array.from({ length: connections }, () => new Jar());
  for (const jar of jars) await site.signIn(jar);
  if (warmup > 0) await load(site, jars, warmup);
  process.stderr.write(`running ${site.name} (${seconds} s, ${connections} browsers)...\n`);
  const before = treeCpuSeconds(site.child.proc.pid);
  const m = await load(site, jars, seconds);
  const after = treeCpuSeconds(site.child.proc.pid);
  const cpuMs = before !== undefined && after !== undefined && m.trips > 0 ? ((after - before) * 1000) / m.trips : undefined;
  return { name: site.name, ...m, cpuMs };
}

async function startPlatform(dir: string, port: number): Promise<Site> {
  const dataDir = join(dir, 'data');
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PUBLIC_URL: '',
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    METRICS_PORT: '0',
    WORKERS: process.env.WORKERS ?? '1',
  };
  const child = startChild('platform', [PLATFORM_JS, 'start'], { cwd: ROOT, env, logFile: join(dir, 'platform.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/healthz`, child, 120_000);
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { realm: string; username: string; password: string };
  const cli = startChild(
    'platform client create',
    [PLATFORM_JS, 'client', 'create', '--client-id', CLIENT_ID, '--public', '--redirect-uris', REDIRECT_URI],
    {
      cwd: ROOT,
      env,
      logFile: join(dir, 'cli.log'),
    },
  );
  if ((await cli.exited) !== 'code 0') throw new Error(`platform client create failed:\n${cli.output()}`);
  const realm = `${base}/auth/api/v1/realms/${boot.realm}`;
  const site: Site = {
    name: 'platform',
    child,
    base,
    authorizeEndpoint: `${realm}/protocol/openid-connect/auth`,
    tokenEndpoint: `${realm}/protocol/openid-connect/token`,
    async signIn(jar) {
      const page = await fetch(authorizeUrl(site, pkce().challenge), { headers: { cookie: jar.header() } });
      jar.keep(page);
      const html = await page.text();
      const action = /<form id="kc-form-login" method="post" action="([^"]+)"/.exec(html)?.[1];
      const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
      if (!action || !request) throw new Error(`platform: no login form (${page.status})`);
      const posted = await fetch(new URL(action, base), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: boot.username, password: boot.password, request }),
      });
      await codeFrom(site, jar, '', posted);
    },
  };
  return site;
}

async function startPeer(dir: string, port: number): Promise<Site> {
  const env = { ...process.env, PORT: String(port), BENCH_PEER_CLIENT_ID: CLIENT_ID, BENCH_PEER_REDIRECT_URI: REDIRECT_URI };
  const child = startChild('peer', [join(ROOT, 'bench', 'token', 'sign-in-peer.mjs')], { cwd: ROOT, env, logFile: join(dir, 'peer.log') });
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/.well-known/openid-configuration`, child);
  const doc = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
  };
  const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'oidc-provider', 'package.json'), 'utf8')) as { version: string })
    .version;
  const site: Site = {
    name: `oidc-provider ${version}`,
    child,
    base,
    authorizeEndpoint: doc.authorization_endpoint,
    tokenEndpoint: doc.token_endpoint,
    // Its interaction route signs the user in and grants openid, then it resumes to the app with a code.
    signIn: async (jar) => void (await codeFrom(site, jar, authorizeUrl(site, pkce().challenge))),
  };
  return site;
}

async function main(): Promise<number> {
  const loadBefore = loadAverage();
  const connections = intEnv('BENCH_CONNECTIONS', 10, 1);
  const seconds = intEnv('BENCH_SECONDS', 10, 1);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 2, 0);
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-sign-in-'));
  const out = process.stdout;
  out.write(`node ${process.version}, load average before start ${loadBefore}\n`);
  out.write(
    `${connections} signed-in browsers, ${seconds} s each after a ${warmup} s warm-up; platform WORKERS=${process.env.WORKERS ?? '1'}; ` +
      'a round trip: authorize (single sign-on: a code at once) + the code exchanged (PKCE S256) for access, refresh and ID tokens\n\n',
  );
  const rows: Measured[] = [];
  try {
    for (const start of [startPlatform, startPeer]) {
      const site = await start(dir, await freePort());
      rows.push(await measure(site, connections, seconds, warmup));
      await stopChild(site.child);
    }
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
  out.write(
    `${markdownTable(
      ['server', 'round trips', 'round trips/s', 'p50 ms', 'p99 ms', 'CPU ms/round trip'],
      rows.map((r) => [r.name, whole(r.trips), fixed(r.perSecond, 0), fixed(r.p50), fixed(r.p99), fixed(r.cpuMs)]),
    )}\n`,
  );
  const [platform, peer] = rows;
  if (platform && peer) {
    out.write(
      `\nplatform / ${peer.name}: round trips/s ${fixed(platform.perSecond / peer.perSecond)}x, ` +
        `p50 ${fixed(platform.p50 / peer.p50)}x, CPU per round trip ${fixed((platform.cpuMs ?? NaN) / (peer.cpuMs ?? NaN))}x\n`,
    );
  }
  const failed = rows.filter((r) => r.errors.length);
  for (const r of failed) out.write(`${r.name}: ${r.errors.length} failed round trips, e.g. ${r.errors.filter(Boolean).join('; ')}\n`);
  if (!failed.length) out.write('all round trips clean: every authorize answered with a code, every exchange 200 with an ID token\n');
  return failed.length ? 1 : 0;
}

process.on('exit', killAllSync);
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:sign-in: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
