/**
 * The peer project for `npm run bench`: node-oidc-provider (bench/token/peer.mjs) in its own process,
 * and its client-credentials target. Before its load the bench gets one token the way a standard
 * relying party would (openid-client: discovery, then the grant) and refuses to compare unless the
 * access token is an RS256 JWT like the platform's.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Issuer, type BaseClient } from 'openid-client';
import type { Target } from '../shared/load';
import { startChild, waitHealthy, type Child } from '../shared/procs';
import { describeJwt, isObject } from './targets';

export interface Peer {
  child: Child;
  name: string;
  /** From the peer's discovery document. */
  issuer: Issuer<BaseClient>;
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
}

/** The installed version, for the output (the package has no "exports" map, so read the file). */
function version(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'node_modules', 'oidc-provider', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown version';
  }
}

/**
 * Starts the peer and waits for its discovery document. peer.mjs is not compiled, so it is found
 * from the project root (not from dist/bench, where this file runs).
 */
export async function startPeer(root: string, port: number, env: NodeJS.ProcessEnv, logFile: string): Promise<Peer> {
  const clientId = 'bench-client';
  const clientSecret = randomBytes(32).toString('base64url');
  const child = startChild('peer', [join(root, 'bench', 'token', 'peer.mjs')], {
    cwd: root,
    env: { ...env, PORT: String(port), BENCH_PEER_CLIENT_ID: clientId, BENCH_PEER_CLIENT_SECRET: clientSecret },
    logFile,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/.well-known/openid-configuration`, child);
  const issuer = await Issuer.discover(url);
  const tokenEndpoint = issuer.metadata.token_endpoint;
  if (!tokenEndpoint) throw new Error('peer: no token_endpoint in its discovery document');
  return { child, name: `oidc-provider ${version(root)}`, issuer, tokenEndpoint, clientId, clientSecret };
}

/** One grant through openid-client; throws unless the access token is an RS256 JWT. */
export async function checkPeerToken(peer: Peer): Promise<string> {
  const client = new peer.issuer.Client({
    client_id: peer.clientId,
    client_secret: peer.clientSecret,
    token_endpoint_auth_method: 'client_secret_post',
  });
  const tokens = await client.grant({ grant_type: 'client_credentials' });
  const jwt = describeJwt(tokens.access_token ?? '');
  if (jwt.alg !== 'RS256') throw new Error(`peer: access_token is ${jwt.text}, expected an RS256 JWT`);
  return jwt.text;
}

/** The same grant as a plain form post (client_secret_post), so autocannon can repeat it. */
export const peerTarget = (peer: Peer): Target => ({
  name: `peer ${peer.name}: client credentials`,
  method: 'POST',
  url: peer.tokenEndpoint,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'client_credentials', client_id: peer.clientId, client_secret: peer.clientSecret }).toString(),
  check: (j) => isObject(j) && typeof j.access_token === 'string' && j.token_type === 'Bearer',
  marker: '"access_token":"',
});
