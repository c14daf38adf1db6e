import type { BrowserSettings } from './browser/client-settings';
import type { ClientRecord, RealmRecord, UserRecord } from './ports';

/** What the token admin (admin.ts) takes and gives. */
export interface RealmInput {
  name?: string;
  id?: string;
  accessTokenLifespan?: number;
  refreshTokenLifespan?: number;
}
export interface ClientInput extends Partial<BrowserSettings> {
  realm?: string;
  clientId: string;
  tenantId?: string;
  roles?: string[];
  scopes?: string[];
  secret?: string;
}
export interface UserInput {
  realm?: string;
  username: string;
  password: string;
  tenantId?: string;
  roles?: string[];
  email?: string;
}

export type RealmView = Omit<RealmRecord, 'createdAt' | 'refreshSecret'> & { createdAt: string; default: boolean };
export type ClientView = Omit<ClientRecord, 'secretHash' | 'createdAt' | 'id'> & { public: boolean; createdAt: string };
/** `locked`: the account reached its bound of failures (LOCKOUT_ACCOUNT_THRESHOLD), so every source is refused for now. */
export type UserView = Omit<UserRecord, 'passwordHash' | 'createdAt'> & { locked: boolean; createdAt: string };
