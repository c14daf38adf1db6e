import type { TokenVerifier } from './verifier';
import { authorize, type Caller } from './caller';

/**
 * How a service's callers prove who they are, declared once in its module (services/<name>) and
 * resolved into `ctx.caller` by every edge before a service method runs: the REST router, the
 * subgraph resolvers (behind the gateway, alone, over graphql-ws, SSE or multipart).
 */
export interface Presented {
  /** A header by lower-case name: the HTTP request's, or a graphql-ws connection_init parameter. */
  header(name: string): string | undefined;
  /** REST routes of a service whose spec carries the credentials in the body: the validated body. */
  body?: unknown;
  /** One request's memo, so a bearer token is verified once however many services it reaches. */
  memo?: Map<string, Promise<unknown>>;
  /** The caller's address (TRUST_PROXY applied), for the audit event of a refused credential. */
  address?: string;
}

export interface CredentialTools {
  verifier: TokenVerifier;
  /** The service's RFC 9068 audience, which a bearer token must name; none to accept any of the platform's. */
  audience?: string;
}

export interface Credentials<C> {
  /**
   * - `none`: public; the request itself is authenticated where needed (OAuth client credentials)
   * - `bearer`: `Authorization: Bearer <access token>` for the service's audience
   * - `model-key`: an LM key and its options (`api-key`, or where a vendor's SDK puts it)
   * - `body-token`: the user's token inside the spec's body (REST), `Authorization` elsewhere
   */
  readonly kind: 'none' | 'bearer' | 'model-key' | 'body-token';
  /** REST resolves the caller after the body is read and validated: the credential is in it. */
  readonly inBody?: boolean;
  /** The caller; Unauthenticated, Forbidden or BadRequest when the credential will not do. */
  resolve(presented: Presented, tools: CredentialTools): Promise<C>;
}

export const noCredentials: Credentials<undefined> = { kind: 'none', resolve: async () => undefined };

/** A bearer token's caller, verified once per request, then held to the service's audience. */
export async function bearerCaller(
  presented: Presented,
  tools: CredentialTools,
  header = presented.header('authorization'),
): Promise<Caller> {
  const memo = presented.memo;
  const key = `bearer ${header ?? ''}`;
  let verified = memo?.get(key) as Promise<Caller> | undefined;
  if (!verified) {
    verified = tools.verifier.authenticate(header);
    memo?.set(key, verified);
  }
  return authorize(await verified, { audience: tools.audience });
}

export const bearerCredentials: Credentials<Caller> = { kind: 'bearer', resolve: (p, tools) => bearerCaller(p, tools) };

/** An LM key as `verify` reads it (missing, unknown, revoked: 401); the `api-key` header unless a route says where its vendor puts it. */
export const modelKeyCredentials = <C>(
  verify: (key: string | undefined, meta: { address?: string; header?(name: string): string | undefined }) => C | Promise<C>,
): Credentials<C> => ({
  kind: 'model-key',
  resolve: async (p) => verify(p.header('api-key'), { address: p.address, header: (name) => p.header(name) }),
});
