import type { TokenAdminApi } from '../../../core/token/admin-api';
import { created, defineAdmin, IfMatch, ifMatchVersion, pageAsk, PageOf, withEtag } from '../../admin/common';
import { createFailures, refused, updateFailures } from './responses';
import * as S from './schemas';

const tags = ['realms'];

/** Realms: listed by every administrator (a realm administrator: its own); made and changed by platform administrators. */
export const realmRoutes = (api: TokenAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/realms',
    summary: 'List realms',
    description: 'A platform administrator sees every realm; a realm administrator only its own. Sorts: `name`, `created_at`.',
    tags,
    input: { query: S.RealmListQuery },
    responses: { 200: { description: 'A page of realms', schema: PageOf(S.AdminRealm) }, ...refused },
    handle: (q, { ctx }) => api.listRealms({ ...pageAsk(q), name: q.name, enabled: q.enabled }, ctx),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms',
    summary: 'Create a realm',
    description: 'With its own signing key and its login and console clients. Platform administrators only.',
    tags,
    input: { body: S.RealmCreate },
    responses: { 201: { description: 'The realm', schema: S.AdminRealm }, ...createFailures },
    handle: async ({ body }, { ctx, res }) => created(res, withEtag(res, await api.createRealm(body, ctx))),
  }),
  defineAdmin({
    method: 'get',
    path: '/realms/:realm',
    summary: 'Read a realm',
    description: 'By id or name. The ETag is its version, for If-Match.',
    tags,
    input: { path: S.RealmPath },
    responses: { 200: { description: 'The realm', schema: S.AdminRealm }, ...refused },
    handle: async (p, { ctx, res }) => withEtag(res, await api.getRealm(p, ctx)),
  }),
  defineAdmin({
    method: 'patch',
    path: '/realms/:realm',
    summary: 'Change a realm',
    description: 'Rename, disable (every session of the realm ends) or enable it, change its lifespans. Platform administrators only.',
    tags,
    input: { path: S.RealmPath, header: IfMatch, body: S.RealmUpdate },
    responses: { 200: { description: 'The realm as changed', schema: S.AdminRealm }, ...updateFailures },
    handle: async (input, { ctx, res }) =>
      withEtag(res, await api.updateRealm({ realm: input.realm, version: ifMatchVersion(input), ...input.body }, ctx)),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/default',
    summary: 'Make a realm the default',
    description: 'The realm used when a request names none. Platform administrators only.',
    tags,
    input: { path: S.RealmPath },
    responses: { 200: { description: 'The realm', schema: S.AdminRealm }, ...refused },
    handle: async (p, { ctx, res }) => withEtag(res, await api.setDefaultRealm(p, ctx)),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/keys',
    summary: "Rotate a realm's signing key",
    description:
      'New tokens are signed with a new key; the old keys stay published until the tokens they signed expire. Platform administrators only.',
    tags,
    input: { path: S.RealmPath },
    responses: { 200: { description: 'The new key', schema: S.KeyRotated }, ...refused },
    handle: (p, { ctx }) => api.rotateRealmKey(p, ctx),
  }),
];
