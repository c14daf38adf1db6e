import { z } from 'zod';
import { param } from '../../core/shared/params';
import { detailBody } from '../../rest/shared/http-errors';
import { authorize, type Caller } from '../../core/shared/auth/caller';
import { bearerCredentials } from '../../core/shared/auth/credentials';
import type { Ctx } from '../../core/shared/context';
import { defineFor } from '../../rest/shared/routes';
import { parseArgs } from '../../subgraphs/shared/args';
import type { GraphContext } from '../../edge/graphql/context';
import { defineService } from '../../services/shared/module';

/**
 * A small extra service, registered only by the tests: everything the platform needs to serve it is
 * here, so the platform must find it without any shared file naming it.
 */
interface Notes {
  notes: { tenant: string; text: string }[];
  greeting: string;
  close(): void;
}

const NewNote = z.object({ text: param.string().check(z.minLength(1)) });
const define = defineFor<Caller>();

/** The service's own rule, checked on the caller its edges established. */
const reader = (ctx: Ctx<Caller>) => authorize(ctx.caller, { roles: ['notes:read'] });

export const notesModule = defineService<Notes, z.ZodObject<{ NOTES_GREETING: z.ZodDefault<z.ZodString> }>, Caller>({
  name: 'notes',
  title: 'Notes service',
  prefix: '/notes/api/v1',
  audience: 'notes',
  config: z.object({ NOTES_GREETING: z.string().default('hello') }),
  open: ({ config }) => ({ notes: [], greeting: config.NOTES_GREETING, close: () => undefined }),
  credentials: () => bearerCredentials,
  rest: (notes) => ({
    title: 'Notes service',
    version: '0.0.1',
    prefix: '/notes/api/v1',
    errorBody: detailBody,
    audience: 'notes',
    routes: [
      define({
        method: 'get',
        path: '/notes',
        summary: "The caller's tenant's notes",
        auth: { roles: ['notes:read'] },
        responses: { 200: { description: 'notes' } },
        handle: async (_input, { ctx }) => notes.notes.filter((n) => n.tenant === reader(ctx).tenantId).map((n) => n.text),
      }),
      define({
        method: 'post',
        path: '/notes',
        summary: 'Add a note',
        auth: { roles: ['notes:read'] },
        input: { body: NewNote },
        responses: { 200: { description: 'added' } },
        handle: async (input, { ctx }) => {
          notes.notes.push({ tenant: reader(ctx).tenantId, text: input.body.text });
          return { added: input.body.text };
        },
      }),
    ],
  }),
  subgraph: {
    sdl: () => `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
type Query { notes: [String!]! greeting: String! }
type Mutation { addNote(text: String!): String! }`,
    resolvers: (notes, { callOf }) => ({
      Query: {
        notes: async (_: unknown, __: unknown, ctx: GraphContext) => {
          const caller = reader(await callOf(ctx));
          return notes.notes.filter((n) => n.tenant === caller.tenantId).map((n) => n.text);
        },
        greeting: () => notes.greeting,
      },
      Mutation: {
        addNote: async (_: unknown, args: { text: string }, ctx: GraphContext) => {
          const caller = reader(await callOf(ctx));
          const { text } = parseArgs(NewNote, args);
          notes.notes.push({ tenant: caller.tenantId, text });
          return text;
        },
      },
    }),
  },
  commands: [
    {
      name: 'note',
      usage: ['platform note count                             how many notes are kept'],
      run: async (notes) => ({ count: notes.notes.length }),
    },
  ],
  jobs: [{ name: 'nothing', everyMs: 60_000, run: () => undefined }],
  bootstrap: async (_notes, current) => ({ notes_greeting_seen: current.notes_greeting_seen ?? 'yes' }),
  client: (opts) => ({ baseUrl: opts.baseUrl }),
});
