import { checkAssignedTenant, checkGrant, checkTouch } from '../../shared/admin/access';
import { keysetOf, keysetPage } from '../../shared/admin/paging';
import { NotFound } from '../../shared/errors';
import type { ClientRecord, RealmRecord } from '../ports';
import type { TokenAdminApiDeps, AdminCtx, AdminTools, ListAsk } from './context';
import { checkRoles } from './context';
import { changedOf } from './realms';
import { clientView, type ClientView, type PageView } from './views';

export interface ClientList extends ListAsk {
  realm: string;
  /** A substring of the client id, in any case. */
  q?: string;
  enabled?: boolean;
  public?: boolean;
}
export interface ClientRef {
  realm: string;
  client_id: string;
}
interface ClientFields {
  roles?: string[];
  scopes?: string[];
  tenant_id?: string;
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  web_origins?: string[];
}
export interface ClientCreate extends ClientFields {
  realm: string;
  client_id: string;
  /** A browser or native app: no secret (people sign in to it with PKCE). */
  public?: boolean;
}
export interface ClientUpdate extends ClientRef, ClientFields {
  /** The version it was read at (If-Match): 412 when it changed since; any when absent. */
  version?: number;
  enabled?: boolean;
}
/** The sorts of the list of clients (the first is the default), and the type of their values. */
const CLIENT_SORTS = { client_id: 'string', created_at: 'number' } as const;

/** A confidential client's secret, in the one answer that shows it. */
export type ClientWithSecret = ClientView & { client_secret?: string };

/**
 * Clients of a realm. A realm administrator gives only its own tenants and never `platform-admin`,
 * and touches no client holding `platform-admin` (core/shared/admin/access.ts).
 */
export function clientsApi(deps: TokenAdminApiDeps, t: AdminTools) {
  const { admin, store } = deps;
  const found = async (realm: RealmRecord, clientId: string): Promise<ClientRecord> => {
    const c = await store.clients.get(realm.id, clientId);
    if (!c) throw new NotFound(`no client '${clientId.slice(0, 128)}' in realm ${realm.id}`);
    return c;
  };
  const guard = (ctx: AdminCtx, c: ClientRecord) => checkTouch(ctx.caller, c, `client '${c.clientId}'`);
  const view = (c: ClientRecord) => clientView(admin.clientView(c));

  return {
    async listClients(q: ClientList, ctx: AdminCtx): Promise<PageView<ClientView>> {
      const realm = await t.realmFor(ctx, q.realm);
      const keyset = keysetOf(q, CLIENT_SORTS);
      const found = await store.clients.page(realm.id, { ...keyset, q: q.q, enabled: q.enabled, public: q.public });
      const page = keysetPage(found, keyset, (c) => [keyset.sort === 'client_id' ? c.clientId : c.createdAt, c.clientId]);
      return { items: page.items.map(view), next_cursor: page.nextCursor, total: page.total };
    },

    async getClient(q: ClientRef, ctx: AdminCtx): Promise<ClientView> {
      return view(await found(await t.realmFor(ctx, q.realm), q.client_id));
    },

    /** A confidential client's secret is generated and shown in this answer only; a public client has none. */
    createClient(input: ClientCreate, ctx: AdminCtx): Promise<ClientWithSecret> {
      return t.change(
        ctx,
        'client.create',
        { kind: 'client', id: input.client_id },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          event.tenant = input.tenant_id ?? realm.id;
          checkGrant(ctx.caller, input.roles);
          checkAssignedTenant(ctx.caller, input.tenant_id);
          const fields = {
            realm: realm.id,
            clientId: input.client_id,
            tenantId: input.tenant_id,
            roles: checkRoles(input.roles),
            scopes: input.scopes,
            redirectUris: input.redirect_uris,
            postLogoutRedirectUris: input.post_logout_redirect_uris,
            webOrigins: input.web_origins,
          };
          if (input.public) return clientView(await admin.createPublicClient(fields));
          const { client_secret, ...made } = await admin.createClient(fields);
          return { ...clientView(made), client_secret };
        },
        (c) => ({ public: c.public, tenant_id: c.tenant_id, roles: c.roles, scopes: c.scopes }),
      );
    },

    updateClient(input: ClientUpdate, ctx: AdminCtx): Promise<ClientView> {
      return t.change(
        ctx,
        'client.update',
        { kind: 'client', id: input.client_id },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          checkGrant(ctx.caller, input.roles);
          checkAssignedTenant(ctx.caller, input.tenant_id);
          const updated = await admin.updateClientSettings(
            realm.id,
            input.client_id,
            {
              enabled: input.enabled,
              roles: checkRoles(input.roles),
              scopes: input.scopes,
              tenantId: input.tenant_id,
              redirectUris: input.redirect_uris,
              postLogoutRedirectUris: input.post_logout_redirect_uris,
              webOrigins: input.web_origins,
            },
            {
              ifVersion: input.version,
              guard: (c) => {
                event.tenant = c.tenantId;
                guard(ctx, c);
              },
            },
          );
          return clientView(updated);
        },
        (c) => ({ changed: changedOf(input), version: c.version }),
      );
    },

    /** A new secret for a confidential client, shown in this answer only; the old one stops working at once. */
    regenerateClientSecret(input: ClientRef, ctx: AdminCtx): Promise<ClientWithSecret> {
      return t.change(
        ctx,
        'client.secret',
        { kind: 'client', id: input.client_id },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          const c = await found(realm, input.client_id);
          event.tenant = c.tenantId;
          guard(ctx, c);
          const { client_secret, ...made } = await admin.rotateClientSecret(realm.id, c.clientId, (now) => guard(ctx, now));
          return { ...clientView(made), client_secret };
        },
        (c) => ({ version: c.version }),
      );
    },
  };
}
