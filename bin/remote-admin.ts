import { adminConnection, type AdminConnection } from '../clients/admin/connection';
import { bearerFor, signInFrom } from '../clients/admin/sign-in';
import { UsageError } from '../services/shared/cli';

/**
 * `platform <admin command> --url U`: the command runs against a remote platform's admin API
 * instead of opening a data directory, signed in as clients/admin/sign-in.ts says, and prints what
 * the local command prints. Its errors are the platform's errors, printed as the local ones are.
 */

/** The flags every command that also runs remotely takes. */
export const REMOTE_FLAGS = ['url', 'token'] as const;

/** The platform to administer: `--url`, else PLATFORM_URL; undefined: the data directory. */
export function remoteUrl(flags: Record<string, string | undefined>, env = process.env): string | undefined {
  const url = flags.url ?? (env.PLATFORM_URL || undefined);
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url takes the platform's address, e.g. http://localhost:8080, not '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--url takes an http or https address, not '${url}'`);
  // A password in the address would end up in error messages: credentials go in the environment.
  if (parsed.username || parsed.password) throw new UsageError('--url takes no credentials: give them as --token or in the environment');
  return parsed.origin + parsed.pathname.replace(/\/+$/, '');
}

export const CREDENTIALS_HELP = [
  'Administrative commands (realm, client, user, session, key, model, usage, documents, audit, graphql) run against',
  'a remote platform with --url U (or PLATFORM_URL), signed in with, the first found: --token T or',
  "PLATFORM_TOKEN (an administrator's access token); PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET (an admin",
  'client, realm PLATFORM_REALM); ADMIN_USERNAME and ADMIN_PASSWORD (realm PLATFORM_REALM, else REALM), as',
  `\`eval "$(platform credentials --shell)"\` exports them. They print the same JSON as on a data directory.`,
];

/** Signs in to `url` and opens the admin API there. */
export async function remoteAdmin(url: string, token: string | undefined, env = process.env): Promise<AdminConnection> {
  const signIn = signInFrom(token, env);
  if (!signIn)
    throw new UsageError(
      `${url} needs an administrator: give --token, or set PLATFORM_TOKEN, PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET, or ADMIN_USERNAME and ADMIN_PASSWORD`,
    );
  return adminConnection({ url, bearer: await bearerFor(url, signIn) });
}
