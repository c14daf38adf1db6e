#!/usr/bin/env node
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../core/config';
import { PlatformError } from '../core/errors';
import { adminCommand, present } from './admin-commands';
import { parseArgs, UsageError } from './args';
import { bootstrapPath } from './bootstrap';
import type { Role } from './start';

// Loaded on use, so admin commands start fast without the GraphQL stack.
const lazyStart = () => require('./start') as typeof import('./start');
const lazySupergraph = () => require('../gateway/supergraph') as typeof import('../gateway/supergraph');

const HELP = `platform: the token, search, model gateway and chat services and their federated graph

  platform start                               everything on PORT (default 8080)
  platform serve <token|gateway> [--port N]    one part alone (gateway: SUBGRAPH_TOKEN_URL)
  platform realm create [--name N] [--access-ttl S] [--refresh-ttl S]
  platform realm list | disable <id> | enable <id> | default <id> | rotate-key [<id>]
  platform client create --client-id ID [--realm R] [--tenant T] [--roles r1,r2] [--scopes s1,s2]
  platform client list [--realm R] | disable --client-id ID | enable --client-id ID | rotate-secret --client-id ID
  platform user create --username U [--password P] [--realm R] [--tenant T] [--roles r1,r2] [--email E]
  platform user list [--realm R] | disable --username U | enable --username U
  platform credentials [--shell]               the first start's credentials (--shell: export lines)
  platform compose [--check]                   write (or check) schema/supergraph.graphql

Every command takes --data-dir D (default PLATFORM_DATA_DIR or ./data) and prints JSON.
Without --password, 'user create' reads the password from standard input.`;

const print = (v: unknown): void => {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
};

async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('--password is required (or pipe it on standard input)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function configFrom(flags: Record<string, string | undefined>): Config {
  const env = { ...process.env };
  if (flags['data-dir']) env.PLATFORM_DATA_DIR = flags['data-dir'];
  if (flags.port) env.PORT = flags.port;
  return loadConfig(env);
}

async function serve(config: Config, role: Role) {
  const running = await lazyStart().startPlatform(config, role);
  const out = process.stdout;
  out.write(`platform (${role}) listening on ${running.url}\n`);
  if (role !== 'gateway') out.write(`  REST docs:  ${running.url}/auth/api/v1/docs\n`);
  if (role !== 'token') out.write(`  GraphQL:    ${running.url}/graphql (Apollo Sandbox; offline GraphiQL at ${running.url}/graphiql)\n`);
  if (running.bootstrap) {
    const file = bootstrapPath(config.PLATFORM_DATA_DIR);
    if (running.bootstrap.created) {
      out.write(`\nFirst start: created the default realm, a demo client and a demo user. Shown once; also in ${file} (mode 0600):\n`);
      out.write(`${JSON.stringify(running.bootstrap.bootstrap, null, 2)}\n\n`);
    } else out.write(`  credentials: ${file}\n`);
  }
  out.write('Ready. Ctrl-C stops.\n');
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { flags, args } = parseArgs(rest);
  switch (command) {
    case 'start':
      return serve(configFrom(flags), 'all');
    case 'serve': {
      const role = args[0];
      if (role !== 'token' && role !== 'gateway') throw new UsageError(`serve takes token or gateway (the other services come later), not '${role ?? ''}'`);
      return serve(configFrom(flags), role);
    }
    case 'realm':
    case 'client':
    case 'user': {
      const token = lazyStart().openToken(configFrom(flags), { durable: true });
      try {
        print(present(await adminCommand(token.admin, [command, ...args], flags, readStdinLine), command));
      } finally {
        token.close();
      }
      return;
    }
    case 'credentials': {
      const file = bootstrapPath(configFrom(flags).PLATFORM_DATA_DIR);
      if (!existsSync(file)) throw new UsageError(`${file} does not exist yet: run 'platform start' once`);
      const creds = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      if (!flags.shell) return print(creds);
      // One `export NAME='value'` per field, for eval in a shell.
      const quote = (v: string) => `'${String(v).replace(/'/g, `'\\''`)}'`;
      process.stdout.write(Object.entries(creds).map(([k, v]) => `export ${k.toUpperCase()}=${quote(v)}\n`).join(''));
      return;
    }
    case 'compose': {
      const { composeSupergraph, readSupergraph, supergraphPath } = lazySupergraph();
      const sdl = composeSupergraph();
      if (flags.check) {
        if (readSupergraph() !== sdl) throw new UsageError(`${supergraphPath()} is stale: run 'npm run compose'`);
        print({ supergraph: supergraphPath(), fresh: true });
        return;
      }
      writeFileSync(supergraphPath(), sdl);
      print({ supergraph: supergraphPath(), written: true });
      return;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${HELP}\n`);
      return;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`platform: ${err.message}\n\n${err instanceof UsageError ? HELP : ''}\n`);
      process.exit(2);
    }
    if (err instanceof PlatformError && err.expose) {
      process.stderr.write(`${JSON.stringify({ error: err.message, kind: err.kind })}\n`);
      process.exit(1);
    }
    if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
      process.stderr.write(`platform: port already in use (${(err as Error).message}); set PORT\n`);
      process.exit(1);
    }
    process.stderr.write(`platform: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}

