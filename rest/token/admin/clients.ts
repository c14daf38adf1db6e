import type { TokenAdminApi } from '../../../core/token/admin-api';
import { created, defineAdmin, IfMatch, ifMatchVersion, pageAsk, PageOf, withEtag } from '../../admin/common';
import { createFailures, refused, updateFailures } from './responses';
import * as S from './schemas';

const tags = ['clients'];

/** A realm's clients; a realm administrator's own realm only (another realm's answer 404). */
export const clientRoutes = (api: TokenAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/realms/:realm/clients',
    summary: 'List clients',
    description: 'Never a secret. Sorts: `client_id`, `created_at`.',
    tags,
    input: { path: S.RealmPath, query: S.ClientListQuery },
    responses: { 200: { description: 'A page of clients', schema: PageOf(S.AdminClient) }, ...refused },
    handle: (q, { ctx }) => api.listClients({ ...pageAsk(q), realm: q.realm, q: q.q, enabled: q.enabled, public: q.public }, ctx),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/clients',
    summary: 'Create a client',
    description:
      'A confidential client gets a generated secret, in this answer only (`client_secret`); a public one (`public: true`) has none. ' +
      'A realm administrator gives only its own tenants and never `platform-admin`.',
    tags,
    input: { path: S.RealmPath, body: S.ClientCreate },
    responses: { 201: { description: 'The client (and its secret, once)', schema: S.AdminClientWithSecret }, ...createFailures },
    handle: async ({ realm, body }, { ctx, res }) => created(res, withEtag(res, await api.createClient({ realm, ...body }, ctx))),
  }),
  defineAdmin({
    method: 'get',
    path: '/realms/:realm/clients/:client_id',
    summary: 'Read a client',
    tags,
    input: { path: S.ClientPath },
    responses: { 200: { description: 'The client', schema: S.AdminClient }, ...refused },
    handle: async (p, { ctx, res }) => withEtag(res, await api.getClient(p, ctx)),
  }),
  defineAdmin({
    method: 'patch',
    path: '/realms/:realm/clients/:client_id',
    summary: 'Change a client',
    description:
      'The fields given; the rest stay. Disabling it, or changing its roles, scopes or tenant, ends its sessions. ' +
      'A realm administrator cannot change a client holding `platform-admin`.',
    tags,
    input: { path: S.ClientPath, header: IfMatch, body: S.ClientUpdate },
    responses: { 200: { description: 'The client as changed', schema: S.AdminClient }, ...updateFailures },
    handle: async (input, { ctx, res }) =>
      withEtag(
        res,
        await api.updateClient({ realm: input.realm, client_id: input.client_id, version: ifMatchVersion(input), ...input.body }, ctx),
      ),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/clients/:client_id/secret',
    summary: "Regenerate a client's secret",
    description: 'A confidential client only. The new secret is in this answer only; the old one stops working at once.',
    tags,
    input: { path: S.ClientPath },
    responses: { 200: { description: 'The client and its new secret', schema: S.AdminClientWithSecret }, ...createFailures },
    handle: async (p, { ctx, res }) => withEtag(res, await api.regenerateClientSecret(p, ctx)),
  }),
];
