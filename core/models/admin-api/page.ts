import type { Page } from '../../shared/admin/paging';

/** A page of an admin list as every face shows it (docs/admin.md): `next_cursor` null on the last page, `total` over every page. */
export interface PageView<T> {
  items: T[];
  next_cursor: string | null;
  total: number;
}

export const pageView = <T, V>(page: Page<T>, view: (t: T) => V): PageView<V> => ({
  items: page.items.map(view),
  next_cursor: page.nextCursor,
  total: page.total,
});
