import { consoleFixture, describeConsole, severe, type ConsoleFixture } from './fixture';
import { documentsOf, list, listStatus, titles } from './documents-page';

/**
 * The console's Documents page (#/documents) in Chromium, over the graph only: the demo user lists
 * its tenant's documents with the v2 filters, pages and sorts them, narrows them by a facet; finds
 * one in every search mode with its score and safe highlights. A platform administrator sees the
 * tenants with documents and reindexes one (uploads, passages and deletion: documents-upload.test.ts).
 * No serious axe violation, no console error.
 */
jest.setTimeout(180_000);

describeConsole('the console: documents', () => {
  let f: ConsoleFixture;
  let values: Record<string, string>;

  beforeAll(async () => {
    f = await consoleFixture();
    values = f.values;
    // 21 notes (two pages of 20) and one report with its own tag, folder and repo; a text with
    // markup in it, to see highlights rendered as text.
    for (let i = 1; i <= 21; i++)
      await f.addDocument({
        title: `Note ${String(i).padStart(2, '0')}`,
        content: `Note number ${i} about lakes.`,
        tags: ['notes'],
        folders: ['inbox'],
      });
    await f.addDocument({
      title: 'Alpine glaciers report',
      content: 'Glaciers retreat as the climate warms: <b>glaciers</b> & "ice" melt. Meltwater raises the sea level.',
      tags: ['science'],
      folders: ['research'],
      repos: ['climate'],
    });
  }, 180_000);
  afterAll(() => f?.stop());

  it('a plain user lists its documents newest first, pages, sorts, filters and narrows them by a facet', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await documentsOf(page);
      await listStatus(page, '22 documents; page 1 of 2');
      expect((await titles(page))[0]).toBe('Alpine glaciers report');
      expect(await titles(page)).toHaveLength(20);
      // A plain user has no Tenants tab (the admin API's view).
      expect(await page.getByRole('tab', { name: 'Tenants' }).count()).toBe(0);
      expect(await severe(page)).toEqual([]);

      await list(page).getByRole('button', { name: 'Next' }).click();
      await listStatus(page, 'page 2 of 2');
      expect(await titles(page)).toEqual(['Note 02', 'Note 01']);
      await list(page).getByRole('button', { name: 'Page 1', exact: true }).click();
      await listStatus(page, 'page 1 of 2');

      const form = page.getByRole('form', { name: 'Filter documents' });
      await form.getByLabel('Sort').selectOption({ label: 'Title Z–A' });
      await list(page).locator('.doc-table tbody tr').first().getByRole('link', { name: 'Note 21' }).waitFor();
      await form.getByLabel('Title contains').fill('glacier');
      await form.getByRole('button', { name: 'Apply filters' }).click();
      await listStatus(page, '1 document match');
      expect(await titles(page)).toEqual(['Alpine glaciers report']);
      await form.getByRole('button', { name: 'Clear' }).click();
      await listStatus(page, '22 documents');

      // A facet (the match set's term counts) adds its value to the filters.
      const tags = list(page).getByRole('group', { name: 'Filter by tags' });
      expect(await tags.getByRole('button').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^notes\s*21/)]));
      await tags.getByRole('button', { name: /^science/ }).click();
      await listStatus(page, '1 document match');
      expect(await form.getByLabel('Tags (comma-separated)').inputValue()).toBe('science');
      await form.getByRole('button', { name: 'Clear' }).click();
      await form.getByLabel('Folders (comma-separated)').fill('inbox, research');
      await form.getByLabel('Repos (comma-separated)').fill('climate');
      await form.getByRole('button', { name: 'Apply filters' }).click();
      await listStatus(page, '1 document match');
      const today = new Date();
      const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
      await form.getByRole('button', { name: 'Clear' }).click();
      await form.getByLabel('Created to').fill(day(new Date(today.getTime() - 3 * 86_400_000)));
      await form.getByRole('button', { name: 'Apply filters' }).click();
      await list(page).getByText('No document matches these filters.').waitFor();
      await form.getByLabel('Created to').fill('');
      await form.getByLabel('Modified from').fill(day(today));
      await form.getByRole('button', { name: 'Apply filters' }).click();
      await listStatus(page, '22 documents match');
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the search playground finds a document in every mode, with its score as a number and a bar, and highlights as text', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await documentsOf(page);
      await page.getByRole('tab', { name: 'Search playground' }).click();
      const form = page.getByRole('form', { name: 'Search playground' });
      await page.getByText('Ask something to see what each mode finds.').waitFor();
      const results = page.getByRole('tabpanel', { name: 'Search playground' });
      for (const mode of ['HYBRID', 'SEMANTIC', 'FULLTEXT', 'BASIC']) {
        await form.getByLabel('Mode').selectOption(mode);
        if (mode === 'BASIC') await form.getByLabel('Content too (anywhere)').check();
        await form.getByLabel('Query').fill('glaciers');
        await form.getByRole('button', { name: 'Search' }).click();
        await results
          .getByRole('status')
          .filter({ hasText: `(${mode.toLowerCase()})` })
          .waitFor();
        const hit = results.locator('.doc-hit').filter({ has: page.getByRole('link', { name: 'Alpine glaciers report' }) });
        await hit.waitFor();
        const score = Number(await hit.locator('.doc-score-number').innerText());
        expect(score).toBeGreaterThan(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(Number(await hit.locator('meter').getAttribute('value'))).toBeCloseTo(score, 2);
        if (mode !== 'SEMANTIC') {
          // The fragment's markup is the graph's <em> only: the document's own <b> is text.
          const highlights = hit.getByRole('list', { name: 'Highlights in Alpine glaciers report' });
          await highlights.locator('mark').first().waitFor();
          expect((await highlights.locator('mark').allInnerTexts()).map((m) => m.toLowerCase())).toContain('glaciers');
          expect(await highlights.innerText()).toContain('<b>glaciers</b> & "ice"');
          expect(await highlights.locator('b').count()).toBe(0);
        }
        expect(await severe(page)).toEqual([]);
      }
      // BASIC's exact phrase: the words in another order find nothing.
      await form.getByLabel('Content too (anywhere)').uncheck();
      await form.getByLabel('Exact phrase').check();
      await form.getByLabel('Query').fill('report glaciers');
      await form.getByRole('button', { name: 'Search' }).click();
      await results.getByText('Nothing found.').waitFor();
      // A minimum score no hit reaches.
      await form.getByLabel('Mode').selectOption('FULLTEXT');
      await form.getByLabel('Query').fill('lakes');
      await form.getByLabel('Minimum score (0 to 1)').fill('1');
      await form.getByRole('button', { name: 'Search' }).click();
      await results.getByRole('status').filter({ hasText: 'result' }).waitFor();
      const scores = await results.locator('.doc-score-number').allInnerTexts();
      expect(scores.length).toBeGreaterThan(0);
      expect(scores.every((s) => Number(s) >= 0.999)).toBe(true);
      // Filters narrow a search; the graph's refusal shows as an alert.
      await form.getByLabel('Minimum score (0 to 1)').fill('');
      await form.getByText('Filters').click();
      await form.getByLabel('Title contains').fill('Note 07');
      await form.getByRole('button', { name: 'Search' }).click();
      await results.getByRole('status').filter({ hasText: '1 result (fulltext)' }).waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a platform administrator sees every tenant with documents and reindexes one after a confirmation; its own search is refused by the graph', async () => {
    const { context, page, errors } = await f.asAdmin();
    try {
      await documentsOf(page);
      // The administrator holds no search role: the graph's FORBIDDEN, said as such.
      await list(page).getByRole('alert').waitFor();
      expect(await list(page).getByRole('alert').innerText()).toMatch(/^Not allowed for your roles: .*search:read/);
      await page.getByRole('tab', { name: 'Tenants' }).click();
      const tenants = page.getByRole('tabpanel', { name: 'Tenants' });
      const first = tenants
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader') })
        .first();
      await first.waitFor();
      const tenant = await first.getByRole('rowheader').innerText();
      // The demo tenant, the only one with documents: the 22 added here.
      expect(await first.getByRole('cell').first().innerText()).toBe('22');
      expect(await tenants.getByRole('rowheader').count()).toBe(1);
      expect(await severe(page)).toEqual([]);
      await tenants.getByRole('button', { name: `Reindex ${tenant}` }).click();
      await tenants.getByRole('button', { name: 'Yes, reindex' }).click();
      await tenants
        .getByRole('status')
        .filter({ hasText: /^Re-embedded \d+ passages? of / })
        .waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
