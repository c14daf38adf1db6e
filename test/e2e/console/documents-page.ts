import type { Page } from 'playwright-core';

/** What the Documents page's browser tests share (documents.test.ts, documents-upload.test.ts). */
export const documentsOf = async (page: Page) => {
  await page.getByRole('link', { name: 'Documents', exact: true }).click();
  await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
};

/** The Documents tab's panel (the list). */
export const list = (page: Page) => page.getByRole('tabpanel', { name: 'Documents' });

/** The titles the list shows, in order. */
export const titles = (page: Page) => list(page).locator('.doc-table tbody td:first-child a').allInnerTexts();

/** Waits for the list's summary (it reads "Loading documents…" while an answer is on its way). */
export const listStatus = (page: Page, text: string | RegExp) => list(page).getByRole('status').filter({ hasText: text }).waitFor();
