import type { ComponentType } from 'react';
import type { Person } from '../auth/session';
import { Overview } from './overview';
import { Realms } from './realms';

/** What a page is given: the person signed in, and whether they administer anything. */
export interface PageProps {
  person: Person;
  admin: boolean;
  /** A platform administrator (every realm, the catalog). */
  platform: boolean;
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
  { path: '#/realms', title: 'Realms', audience: 'admin', component: Realms },
];
