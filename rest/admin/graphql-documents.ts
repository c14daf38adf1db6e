import { z } from 'zod';
import type { Admin } from '../../core/shared/admin/access';
import type { Ctx } from '../../core/shared/context';
import type { AdminFace } from '../shared/routes';
import { defineAdmin } from './common';

const tags = ['graphql'];

const TrustedDocumentList = z.object({
  app: z.string().describe('The app whose operations the list holds'),
  format: z
    .enum(['apollo-persisted-query-manifest', 'graphql-codegen-persisted-documents'])
    .describe("The manifest's format: Apollo's persisted query list, or GraphQL Code Generator's persisted-documents.json"),
  documents: z.number().int().describe('Documents in the list'),
  loaded_at: z.string().describe('When it was last loaded (ISO 8601)'),
  built_in: z
    .literal(true)
    .optional()
    .describe(
      "The platform's own list, its web console's operations (app `console`, in log and refuse modes): not loaded or removed by hand",
    ),
});

/** What these routes call: the gateway's trusted documents administration (gateway/trusted/admin-api.ts), wired in bin/. */
export interface GraphqlDocumentsApi {
  load(input: { manifest: unknown; app: string }, ctx: Ctx<Admin>): Promise<z.infer<typeof TrustedDocumentList>>;
  list(ctx: Ctx<Admin>): Promise<z.infer<typeof TrustedDocumentList>[]>;
  remove(app: string, ctx: Ctx<Admin>): Promise<void>;
}

const AppPath = z.object({ app: z.string().max(64).describe("The app's name: 1-64 letters, digits, '.', '_' or '-'") });

const Manifest = z
  .record(z.string(), z.unknown())
  .describe(
    'A manifest as the build writes it: Apollo\'s persisted query list (`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id","body","name","type"}]}`) ' +
      'or GraphQL Code Generator\'s persisted-documents.json (`{"<id>": "<document>"}`)',
  );

const refused = {
  400: { description: 'The manifest is not valid: the message names the document (`INVALID_MANIFEST`) or the app name is not one' },
  403: { description: 'Not a platform administrator' },
};

/**
 * The trusted documents (docs/trusted-documents.md) under `/admin/api/v1/graphql/documents`: load an
 * app's manifest (replacing its list), list the apps' lists, remove one. Platform administrators only.
 */
export function graphqlDocumentsRoutes(api: GraphqlDocumentsApi): AdminFace {
  return {
    schemas: { TrustedDocumentList },
    routes: [
      defineAdmin({
        method: 'get',
        path: '/graphql/documents',
        summary: 'Trusted document lists',
        description: "Every app's list of trusted GraphQL documents, by app name. Platform administrators only.",
        tags,
        responses: { 200: { description: 'The lists', schema: z.object({ items: z.array(TrustedDocumentList) }) }, 403: refused[403] },
        handle: async (_i, { ctx }) => ({ items: await api.list(ctx) }),
      }),
      defineAdmin({
        method: 'post',
        path: '/graphql/documents/:app',
        summary: "Load an app's trusted documents",
        description:
          "Replaces the app's list with the manifest's documents, all or nothing: each must parse and validate against the graph's schema, " +
          'one operation each; a SHA-256 id must be the digest of its text; an id another app lists with another text is refused (409). ' +
          'Every gateway process uses the new list within a few seconds (docs/trusted-documents.md). Audited as `graphql_documents.load`. ' +
          'At most BODY_LIMIT_BYTES of JSON (the CLI reads larger files). Platform administrators only.',
        tags,
        input: { path: AppPath, body: Manifest },
        responses: {
          200: { description: 'The list as loaded', schema: TrustedDocumentList },
          ...refused,
          409: {
            description:
              "An id of the manifest is another app's, with another text (`DOCUMENT_ID_TAKEN`), or the app is the built-in `console` (`APP_BUILT_IN`)",
          },
          413: { description: 'More documents than one manifest may hold (`MANIFEST_TOO_LARGE`)' },
        },
        handle: (input, { ctx }) => api.load({ app: input.app, manifest: input.body }, ctx),
      }),
      defineAdmin({
        method: 'delete',
        path: '/graphql/documents/:app',
        summary: "Remove an app's trusted documents",
        description:
          'Its operations are then unlisted (refused in `refuse` mode). Audited as `graphql_documents.remove`. Platform administrators only.',
        tags,
        input: { path: AppPath },
        responses: {
          204: { description: 'Removed' },
          403: refused[403],
          404: { description: 'The app has no list' },
          409: { description: "The app is the built-in `console` (`APP_BUILT_IN`): its list is the platform's own" },
        },
        handle: async (p, { ctx, res }) => {
          await api.remove(p.app, ctx);
          res.status(204).end();
          return undefined;
        },
      }),
    ],
  };
}
