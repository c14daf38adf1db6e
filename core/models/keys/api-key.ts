import { createHash, randomBytes } from 'node:crypto';
import type { MoneyBudget } from '../spend/budget';

/** An API key as the gateway and its administrator see it (never the key itself). */
export interface ApiKey {
  id: string;
  /** The key's first characters, to tell keys apart in listings. */
  prefix: string;
  name: string;
  tenant: string;
  /** Model ids the key may use; null: every model. */
  models: string[] | null;
  requestsPerMinute: number | null;
  tokenBudget: number | null;
  /** Its most spend in money per day or month (docs/spend.md); null or absent: none. */
  budget?: MoneyBudget | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** When it stops working (refused as a revoked key is from then on); null: never. */
  expiresAt: Date | null;
}

export interface NewKey {
  name: string;
  tenant: string;
  models?: string[];
  requestsPerMinute?: number;
  tokenBudget?: number;
  budget?: MoneyBudget;
  expiresAt?: Date;
}

const KEY_PREFIX = 'lmk-';
/** What a listing shows of a key: its marker and six characters of its random part. */
const SHOWN = KEY_PREFIX.length + 6;
/** Longer texts are not keys: refused before anything is hashed. */
const MAX_KEY_LENGTH = 200;

/** A new key's text: 256 random bits, so a fast hash of it is as safe to keep as a slow one and costs nothing per call. */
export const newKeyText = (): string => `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

export const prefixOf = (keyText: string): string => keyText.slice(0, SHOWN);

/** Whether a text may be a key at all (a lookup for anything else is skipped). */
export const mayBeKey = (text: string): boolean => text.startsWith(KEY_PREFIX) && text.length <= MAX_KEY_LENGTH;

/** What the store keeps in place of the key's text (SHA-256, hex). */
export const hashOfKey = (keyText: string): string => createHash('sha256').update(keyText).digest('hex');
