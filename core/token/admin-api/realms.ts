import { requirePlatform } from '../../shared/admin/access';
import type { TokenAdminApiDeps, AdminCtx, AdminTools, ListAsk } from './context';
import { contains } from './context';
import { realmView, type PageView, type RealmView } from './views';

export interface RealmList extends ListAsk {
  /** A substring of the name, in any case. */
  name?: string;
  enabled?: boolean;
}
export interface RealmCreate {
  name: string;
  access_token_lifespan?: number;
  refresh_token_lifespan?: number;
}
export interface RealmRef {
  /** Its id or its name. */
  realm: string;
}
export interface RealmUpdate extends RealmRef {
  /** The version it was read at (If-Match): 412 when it changed since; any when absent. */
  version?: number;
  name?: string;
  enabled?: boolean;
  access_token_lifespan?: number;
  refresh_token_lifespan?: number;
}

/**
 * Realms: a platform administrator lists and changes every one; a realm administrator sees only
 * its own (and changes nothing about it: lifespans and keys are the platform's).
 */
export function realmsApi(deps: TokenAdminApiDeps, t: AdminTools) {
  const { admin, store } = deps;
  const view = async (id: string) => {
    const realm = await store.realms.get(id);
    return realmView((await admin.realmViews(realm ? [realm] : []))[0]);
  };
  return {
    async listRealms(q: RealmList, ctx: AdminCtx): Promise<PageView<RealmView>> {
      const all = (await admin.listRealms()).map(realmView);
      const mine = all.filter(
        (r) =>
          (ctx.caller.platform || r.realm === ctx.caller.realm) &&
          contains(r.name, q.name) &&
          (q.enabled === undefined || r.enabled === q.enabled),
      );
      return t.page(
        mine,
        q,
        { keyOf: (r) => r.realm, sorts: { name: (r) => r.name.toLowerCase(), created_at: (r) => r.created_at } },
        (r) => r,
      );
    },

    async getRealm(q: RealmRef, ctx: AdminCtx): Promise<RealmView> {
      return view((await t.realmFor(ctx, q.realm)).id);
    },

    createRealm(input: RealmCreate, ctx: AdminCtx): Promise<RealmView> {
      return t.change(
        ctx,
        'realm.create',
        { kind: 'realm', id: input.name },
        async (event) => {
          requirePlatform(ctx.caller);
          const made = realmView(
            await admin.createRealm({
              name: input.name,
              accessTokenLifespan: input.access_token_lifespan,
              refreshTokenLifespan: input.refresh_token_lifespan,
            }),
          );
          event.realm = made.realm;
          return made;
        },
        (r) => ({ realm: r.realm, name: r.name }),
      );
    },

    updateRealm(input: RealmUpdate, ctx: AdminCtx): Promise<RealmView> {
      return t.change(
        ctx,
        'realm.update',
        { kind: 'realm', id: input.realm },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          event.target = { kind: 'realm', id: realm.id };
          requirePlatform(ctx.caller);
          return realmView(
            await admin.updateRealm(
              realm.id,
              {
                name: input.name,
                enabled: input.enabled,
                accessTokenLifespan: input.access_token_lifespan,
                refreshTokenLifespan: input.refresh_token_lifespan,
              },
              input.version,
            ),
          );
        },
        (r) => ({ changed: changedOf(input), version: r.version }),
      );
    },

    setDefaultRealm(input: RealmRef, ctx: AdminCtx): Promise<RealmView> {
      return t.change(ctx, 'realm.default', { kind: 'realm', id: input.realm }, async (event) => {
        const realm = await t.realmFor(ctx, input.realm);
        event.realm = realm.id;
        event.target = { kind: 'realm', id: realm.id };
        requirePlatform(ctx.caller);
        await admin.setDefaultRealm(realm.id);
        return view(realm.id);
      });
    },

    /** A new signing key; the old ones still verify the tokens they signed until those expire. */
    rotateRealmKey(input: RealmRef, ctx: AdminCtx): Promise<{ realm: string; kid: string; keys: number }> {
      return t.change(
        ctx,
        'realm.key-rotate',
        { kind: 'realm', id: input.realm },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          event.target = { kind: 'realm', id: realm.id };
          requirePlatform(ctx.caller);
          return admin.rotateRealmKey(realm.id);
        },
        (r) => ({ kid: r.kid, keys: r.keys }),
      );
    },
  };
}

/** The names of the fields an update gave (never their values: the audit keeps what changed, not secrets). */
export const changedOf = (input: object, skip: readonly string[] = ['realm', 'version', 'client_id', 'username']): string[] =>
  Object.entries(input)
    .filter(([k, v]) => v !== undefined && !skip.includes(k))
    .map(([k]) => k);
