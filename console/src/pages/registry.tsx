import type { ComponentType } from 'react';
import type { Person } from '../auth/session';
import { Account } from './account';
import { Audit } from './audit';
import { Chat } from './chat';
import { Documents } from './documents';
import { Keys } from './keys';
import { Models } from './models';
import { Overview } from './overview';
import { Realms } from './realms';
import { Usage } from './usage';

/** What a page is given: the person signed in, and whether they administer anything. */
export interface PageProps {
  person: Person;
  admin: boolean;
  /** A platform administrator (every realm, the catalog). */
  platform: boolean;
  /** What the address has after the page's path and a slash (`#/documents/<id>`: `<id>`), else ''. */
  rest: string;
}

export interface PageEntry {
  /** The address's fragment: `#/realms`. */
  path: string;
  title: string;
  /** Who sees it in the navigation: everyone, administrators, or platform administrators. */
  audience: 'everyone' | 'admin' | 'platform';
  component: ComponentType<PageProps>;
}

/** The console's pages, in the navigation's order. Adding a page is one line here. */
export const PAGES: PageEntry[] = [
  { path: '#/', title: 'Overview', audience: 'everyone', component: Overview },
  { path: '#/account', title: 'My sessions', audience: 'everyone', component: Account },
  { path: '#/realms', title: 'Realms', audience: 'admin', component: Realms },
  { path: '#/keys', title: 'Model keys', audience: 'admin', component: Keys },
  { path: '#/models', title: 'Models', audience: 'admin', component: Models },
  { path: '#/usage', title: 'Usage', audience: 'admin', component: Usage },
  { path: '#/documents', title: 'Documents', audience: 'everyone', component: Documents },
  { path: '#/chat', title: 'Chat', audience: 'everyone', component: Chat },
  { path: '#/audit', title: 'Audit', audience: 'admin', component: Audit },
];
