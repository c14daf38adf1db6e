import { mayRealm, type Admin } from '../../shared/admin/access';
import { audited, changeBy, type AuditTrail, type NewAuditEvent } from '../../shared/admin/audit';
import { pageOf, type PageAsk } from '../../shared/admin/paging';
import type { Ctx } from '../../shared/context';
import { BadRequest, NotFound } from '../../shared/errors';
import type { TokenAdmin } from '../admin';
import type { RealmRecord, TokenStore } from '../ports';
import type { PageView } from './views';

export interface TokenAdminApiDeps {
  /** The token service's administration (core/token/admin.ts): the rules of realms, clients and users. */
  admin: TokenAdmin;
  store: TokenStore;
  /** Where every change is recorded (core/shared/admin/audit.ts). */
  audit: AuditTrail;
}

/** Every admin call: the administrator the edge established, and where it called from. */
export type AdminCtx = Ctx<Admin>;

/** An event being recorded: its realm and tenant are filled in once the change has found them. */
export type ChangeEvent = Omit<NewAuditEvent, 'outcome'>;

/** Every list's page: `limit`, `cursor`, `sort`. */
export type ListAsk = PageAsk;

/** The parts each admin module of the token service shares. */
export function adminTools(deps: TokenAdminApiDeps) {
  const { store } = deps;
  return {
    /**
     * The realm named by id or name (in any case), when the administrator may act in it; otherwise
     * 404, the same answer as for a realm that does not exist, so other realms are not disclosed.
     */
    async realmFor(ctx: AdminCtx, ref: string): Promise<RealmRecord> {
      const realm = (await store.realms.get(ref)) ?? (await store.realms.getByName(ref));
      if (!realm || !mayRealm(ctx.caller, realm.id)) throw new NotFound(`no realm '${ref.slice(0, 128)}'`);
      return realm;
    },

    /**
     * Runs a change and records it (success with `details` of what it returned, or failure with
     * why). `run` fills in the event's realm and tenant as it finds them, so a refusal before the
     * realm is known is recorded without one (only a platform administrator reads such events).
     */
    change<T>(
      ctx: AdminCtx,
      type: string,
      target: { kind: string; id: string },
      run: (event: ChangeEvent) => Promise<T>,
      details?: (result: T) => Record<string, unknown>,
    ): Promise<T> {
      const event = changeBy(ctx.caller, ctx, 'token', type, { target: { kind: target.kind, id: target.id.slice(0, 256) } });
      return audited(deps.audit, event, () => run(event), details);
    },

    /** One page of `items` (already filtered), each shown as `view` (only the page's items are viewed). */
    async page<T, V>(
      items: readonly T[],
      ask: ListAsk,
      opts: { keyOf: (t: T) => string; sorts: Record<string, (t: T) => string | number | boolean | null | undefined> },
      view: (t: T) => V | Promise<V>,
    ): Promise<PageView<V>> {
      const page = pageOf(items, ask, opts);
      return { items: await Promise.all(page.items.map(view)), next_cursor: page.nextCursor, total: page.total };
    },
  };
}

export type AdminTools = ReturnType<typeof adminTools>;

/** A substring filter, in any case. */
export const contains = (value: string, q: string | undefined) => q === undefined || value.toLowerCase().includes(q.toLowerCase());

const ROLE = /^[A-Za-z0-9][\w.:@-]{0,127}$/;
const MAX_ROLES = 50;

/** Role names as given to a client or user: at most 50, each 1-128 characters of letters, digits and . _ : @ - */
export function checkRoles(roles: readonly string[] | undefined): string[] | undefined {
  if (roles === undefined) return undefined;
  if (roles.length > MAX_ROLES) throw new BadRequest(`roles: at most ${MAX_ROLES}`);
  const bad = roles.find((r) => !ROLE.test(r));
  if (bad !== undefined) throw new BadRequest(`role '${bad.slice(0, 64)}': 1-128 characters: letters, digits and . _ : @ -`);
  return [...new Set(roles)];
}
