import type { TokenAdminApi } from '../../../core/token/admin-api';
import { defineAdmin, pageAsk, PageOf } from '../../admin/common';
import { refused } from './responses';
import * as S from './schemas';

const tags = ['sessions'];

/** A realm's open single sign-on sessions. */
export const sessionRoutes = (api: TokenAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/realms/:realm/sessions',
    summary: 'List sessions',
    description: 'The open single sign-on (browser) sessions, newest first by default. Sorts: `created_at`, `username`, `expires_at`.',
    tags,
    input: { path: S.RealmPath, query: S.SessionListQuery },
    responses: { 200: { description: 'A page of sessions', schema: PageOf(S.AdminSession) }, ...refused },
    handle: (q, { ctx }) => api.listSessions({ ...pageAsk(q), realm: q.realm, username: q.username }, ctx),
  }),
  defineAdmin({
    method: 'delete',
    path: '/realms/:realm/sessions/:id',
    summary: 'End a session',
    description: "The browser signs in again with a password; every application's tokens of the session stop working.",
    tags,
    input: { path: S.SessionPath },
    responses: { 200: { description: 'How many token sessions ended with it', schema: S.SessionEnded }, ...refused },
    handle: (p, { ctx }) => api.endSession(p, ctx),
  }),
];
