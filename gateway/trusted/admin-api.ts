import type { GraphQLSchema } from 'graphql';
import { requirePlatform, type Admin } from '../../core/shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../../core/shared/admin/audit';
import type { Clock } from '../../core/shared/clock';
import type { Ctx } from '../../core/shared/context';
import { NotFound } from '../../core/shared/errors';
import { checkAppName, DEFAULT_MANIFEST_LIMITS, parseManifest, type ManifestFormat, type ManifestLimits } from './manifest';
import type { TrustedApp, TrustedStore } from './store';

/** An app's list as the admin API and the CLI print it. */
export interface TrustedAppView {
  app: string;
  format: ManifestFormat;
  documents: number;
  loaded_at: string;
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
 */
export function trustedDocumentsAdmin(opts: {
  store: TrustedStore;
  schema: () => GraphQLSchema;
  audit: AuditTrail;
  clock: Clock;
  changed?: () => Promise<void>;
  limits?: ManifestLimits;
}): TrustedDocumentsAdmin {
  const event = (ctx: Ctx<Admin>, type: string, app: string) =>
    changeBy(ctx.caller, ctx, 'gateway', type, { target: { kind: 'graphql_documents', id: app } });
  return {
    async load({ manifest, app }, ctx) {
      requirePlatform(ctx.caller);
      checkAppName(app);
      return audited(
        opts.audit,
        event(ctx, 'graphql_documents.load', app),
        async () => {
          const { format, documents } = parseManifest(manifest, opts.schema(), opts.limits ?? DEFAULT_MANIFEST_LIMITS);
          const loaded = await opts.store.replace(app, format, documents, opts.clock.now());
          await opts.changed?.();
          return appView(loaded);
        },
        (r) => ({ documents: r.documents, format: r.format }),
      );
    },
    async list(ctx) {
      requirePlatform(ctx.caller);
      return (await opts.store.apps()).map(appView);
    },
    async remove(app, ctx) {
      requirePlatform(ctx.caller);
      checkAppName(app);
      await audited(opts.audit, event(ctx, 'graphql_documents.remove', app), async () => {
        if (!(await opts.store.remove(app))) throw new NotFound(`no trusted document list for app '${app}'`);
        await opts.changed?.();
      });
    },
  };
}
