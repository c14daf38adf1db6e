import { z } from 'zod';
import type { TokenAdminApi } from '../../../core/token/admin-api';
import { created, defineAdmin, IfMatch, ifMatchVersion, pageAsk, PageOf, withEtag } from '../../admin/common';
import { createFailures, refused, updateFailures } from './responses';
import * as S from './schemas';

const tags = ['users'];

/**
 * A realm's users; a realm administrator's own realm only, and never a user holding
 * `platform-admin` (403 for its password, roles, lock and sessions).
 */
export const userRoutes = (api: TokenAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/realms/:realm/users',
    summary: 'List users',
    description: 'Never a password or its hash. Sorts: `username`, `created_at`.',
    tags,
    input: { path: S.RealmPath, query: S.UserListQuery },
    responses: { 200: { description: 'A page of users', schema: PageOf(S.AdminUser) }, ...refused },
    handle: (q, { ctx }) => api.listUsers({ ...pageAsk(q), realm: q.realm, q: q.q, enabled: q.enabled, role: q.role }, ctx),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/users',
    summary: 'Create a user',
    description: 'A realm administrator gives only its own tenants and never `platform-admin`.',
    tags,
    input: { path: S.RealmPath, body: S.UserCreate },
    responses: { 201: { description: 'The user', schema: S.AdminUser }, ...createFailures },
    handle: async ({ realm, body }, { ctx, res }) => created(res, withEtag(res, await api.createUser({ realm, ...body }, ctx))),
  }),
  defineAdmin({
    method: 'get',
    path: '/realms/:realm/users/:username',
    summary: 'Read a user',
    tags,
    input: { path: S.UserPath },
    responses: { 200: { description: 'The user', schema: S.AdminUser }, ...refused },
    handle: async (p, { ctx, res }) => withEtag(res, await api.getUser(p, ctx)),
  }),
  defineAdmin({
    method: 'patch',
    path: '/realms/:realm/users/:username',
    summary: 'Change a user',
    description: 'The fields given; the rest stay. Disabling them, or changing their roles or tenant, ends their sessions.',
    tags,
    input: { path: S.UserPath, header: IfMatch, body: S.UserUpdate },
    responses: { 200: { description: 'The user as changed', schema: S.AdminUser }, ...updateFailures },
    handle: async (input, { ctx, res }) =>
      withEtag(
        res,
        await api.updateUser({ realm: input.realm, username: input.username, version: ifMatchVersion(input), ...input.body }, ctx),
      ),
  }),
  defineAdmin({
    method: 'put',
    path: '/realms/:realm/users/:username/password',
    summary: "Set a user's password",
    description: "Lifts every lock on the account and ends the user's sessions. The password is never shown or recorded.",
    tags,
    input: { path: S.UserPath, body: S.PasswordBody },
    responses: {
      200: { description: 'The user, and how many sessions ended', schema: S.AdminUser.extend({ sessions_ended: z.int() }) },
      ...createFailures,
    },
    handle: async ({ realm, username, body }, { ctx, res }) =>
      withEtag(res, await api.setUserPassword({ realm, username, password: body.password }, ctx)),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/users/:username/unlock',
    summary: 'Unlock a user',
    description: 'Lifts the lock that wrong passwords put on the account, for every address.',
    tags,
    input: { path: S.UserPath },
    responses: { 200: { description: 'The user', schema: S.AdminUser }, ...refused },
    handle: async (p, { ctx, res }) => withEtag(res, await api.unlockUser(p, ctx)),
  }),
  defineAdmin({
    method: 'post',
    path: '/realms/:realm/users/:username/logout',
    summary: 'End every session of a user',
    description: 'Their access and refresh tokens stop working at once.',
    tags,
    input: { path: S.UserPath },
    responses: { 200: { description: 'How many sessions ended', schema: S.SessionsEnded }, ...refused },
    handle: (p, { ctx }) => api.logoutUser(p, ctx),
  }),
];
