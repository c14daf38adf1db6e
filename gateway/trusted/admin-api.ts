import type { GraphQLSchema } from 'graphql';
import { requirePlatform, type Admin } from '../../core/shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../../core/shared/admin/audit';
import type { Clock } from '../../core/shared/clock';
import type { Ctx } from '../../core/shared/context';
import { NotFound } from '../../core/shared/errors';
import type { GraphqlLimits } from '../../edge/graphql/limits';
import { checkAppName, DEFAULT_MANIFEST_LIMITS, parseManifest, type ManifestFormat, type ManifestLimits } from './manifest';
import { builtInRefusal, CONSOLE_APP, type BuiltInList } from './built-in';
import { clash, type TrustedApp, type TrustedStore } from './store';

/** An app's list as the admin API and the CLI print it. */
export interface TrustedAppView {
  app: string;
  format: ManifestFormat;
  documents: number;
  loaded_at: string;
  /** The platform's own list (its web console's operations): shown, never loaded or removed by hand. */
  built_in?: true;
}

export const appView = (a: TrustedApp): TrustedAppView => ({
  app: a.app,
  format: a.format,
  documents: a.documents,
  loaded_at: new Date(a.loadedAt).toISOString(),
});

export interface TrustedDocumentsAdmin {
  /** Replaces `app`'s list with the manifest's documents, all or nothing. */
  load(input: { manifest: unknown; app: string }, ctx: Ctx<Admin>): Promise<TrustedAppView>;
  list(ctx: Ctx<Admin>): Promise<TrustedAppView[]>;
  /** Drops `app`'s list; 404 when it has none. */
  remove(app: string, ctx: Ctx<Admin>): Promise<void>;
}

/**
 * Administration of the trusted documents (docs/trusted-documents.md), the same for the admin API and
 * the CLI: platform administrators only (the lists decide what the whole graph runs), each change
 * audited (`graphql_documents.load`, `graphql_documents.remove`). Manifests are checked against the
 * graph's API schema (`schema`, built on first use) before anything is stored; `changed` runs after
 * a change (this process's copy in memory is refreshed at once, the others' within their refresh).
 * The name `console` is the platform's (built-in.ts): `builtIn`, when the mode loads it, is listed
 * first, marked `built_in`, and its ids are taken (an app's document of one of them with another
 * text is refused).
 */
export function trustedDocumentsAdmin(opts: {
  store: TrustedStore;
  schema: () => GraphQLSchema;
  audit: AuditTrail;
  clock: Clock;
  changed?: () => Promise<void>;
  limits?: ManifestLimits;
  /** The deployment's GRAPHQL_MAX_* bounds: a listed operation over them could never run. */
  bounds?: GraphqlLimits;
  builtIn?: BuiltInList;
}): TrustedDocumentsAdmin {
  const builtInIds = new Map(opts.builtIn?.documents.map((d) => [d.id, d.body]));
  const checkName = (app: string) => {
    checkAppName(app);
    if (app === CONSOLE_APP) throw builtInRefusal(app);
  };
  const event = (ctx: Ctx<Admin>, type: string, app: string) =>
    changeBy(ctx.caller, ctx, 'gateway', type, { target: { kind: 'graphql_documents', id: app } });
  return {
    async load({ manifest, app }, ctx) {
      requirePlatform(ctx.caller);
      checkName(app);
      return audited(
        opts.audit,
        event(ctx, 'graphql_documents.load', app),
        async () => {
          const { format, documents } = await parseManifest(manifest, opts.schema(), opts.limits ?? DEFAULT_MANIFEST_LIMITS, opts.bounds);
          const taken = documents.find((d) => builtInIds.has(d.id) && builtInIds.get(d.id) !== d.body);
          if (taken) throw clash(taken.id, CONSOLE_APP);
          const loaded = await opts.store.replace(app, format, documents, opts.clock.now());
          await opts.changed?.();
          return appView(loaded);
        },
        (r) => ({ documents: r.documents, format: r.format }),
      );
    },
    async list(ctx) {
      requirePlatform(ctx.caller);
      const own = opts.builtIn ? [{ ...appView(opts.builtIn.app), built_in: true as const }] : [];
      return [...own, ...(await opts.store.apps()).map(appView)];
    },
    async remove(app, ctx) {
      requirePlatform(ctx.caller);
      checkName(app);
      await audited(opts.audit, event(ctx, 'graphql_documents.remove', app), async () => {
        if (!(await opts.store.remove(app))) throw new NotFound(`no trusted document list for app '${app}'`);
        await opts.changed?.();
      });
    },
  };
}
