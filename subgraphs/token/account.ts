import type { Caller } from '../../core/shared/auth/caller';
import * as In from '../../core/token/inputs';
import type { AccountSession, TokenService } from '../../core/token/service';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { parseArgs } from '../shared/args';

const session = (s: AccountSession) => ({
  id: s.id,
  authTime: s.auth_time,
  createdAt: s.created_at,
  expiresAt: s.expires_at,
  current: s.current,
});

/**
 * The viewer's own sessions (`Viewer.sessions`, `endViewerSession`, `endViewerSessions`): the token
 * service's account methods, the caller established from the bearer token for the `account`
 * audience as the REST routes establish it (the caller first, then the arguments), so both faces
 * answer and refuse alike.
 */
export function accountResolvers(token: TokenService, accountOf: CallOf<Caller>) {
  return {
    Viewer: {
      sessions: async (_: unknown, args: { first?: number | null; after?: string | null }, graph: GraphContext) => {
        const ctx = await accountOf(graph);
        const req = parseArgs(In.AccountSessionsRequest, { limit: args.first, cursor: args.after }, { limit: 'first', cursor: 'after' });
        const page = await token.accountSessions(req, ctx);
        return { items: page.items.map(session), nextCursor: page.next_cursor, total: page.total };
      },
    },
    Mutation: {
      endViewerSession: async (_: unknown, args: { id: string }, graph: GraphContext) => {
        const ctx = await accountOf(graph);
        return (await token.endAccountSession(parseArgs(In.AccountSessionRef, args), ctx)).sessions_ended;
      },
      endViewerSessions: async (_: unknown, _args: unknown, graph: GraphContext) =>
        (await token.endAccountSessions({}, await accountOf(graph))).sessions_ended,
    },
  };
}
