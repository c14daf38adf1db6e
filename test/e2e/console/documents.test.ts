import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Documents page (#/documents) in Chromium, over the graph only: the demo user lists
 * its tenant's documents with the v2 filters, pages and sorts them, narrows them by a facet; finds
 * one in every search mode with its score and safe highlights; uploads files by the file input and
 * by a drop, each with its progress to the end; opens one and reads its passages page by page;
 * deletes it after a confirmation; sees the graph's refusal of a file that is too large; on a
 * phone too. Administrators see the tenants they administer, a realm administrator only its own.
 * No serious axe violation, no console error.
 */
jest.setTimeout(240_000);

/**
 * Small limits, so "too large" is cheap: a file over 64 KiB is the search service's refusal
 * (PAYLOAD_TOO_LARGE in the graph's answer), a request over 256 KiB the graph's (HTTP 413).
 */
const MAX_UPLOAD = 64 * 1024;
const MAX_BODY = 256 * 1024;

/** Words enough for more than 20 passages (200-word windows overlapping by 40). */
const longText = () =>
  Array.from({ length: 4200 }, (_, i) => (i % 12 === 11 ? `moraine${i}.` : ['ice', 'snow', 'rock', 'valley', 'melt'][i % 5])).join(' ');

describeConsole('the console: documents', () => {
  let f: ConsoleFixture;
  let values: Record<string, string>;

  beforeAll(async () => {
    f = await consoleFixture({ SEARCH_MAX_UPLOAD_BYTES: String(MAX_UPLOAD), GRAPHQL_MAX_BODY_BYTES: String(MAX_BODY) });
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

  const documentsOf = async (page: Page) => {
    await page.getByRole('link', { name: 'Documents', exact: true }).click();
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
  };
  const list = (page: Page) => page.getByRole('tabpanel', { name: 'Documents' });
  const titles = (page: Page) => list(page).locator('.doc-table tbody td:first-child a').allInnerTexts();
  /** Waits for the list's summary (it reads "Loading documents…" while an answer is on its way). */
  const listStatus = (page: Page, text: string | RegExp) => list(page).getByRole('status').filter({ hasText: text }).waitFor();

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

  it('uploads two files by the input and one by a drop, each to its end; opens one, reads its passages, deletes it', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await documentsOf(page);
      await page.getByRole('tab', { name: 'Upload' }).click();
      const upload = page.getByRole('tabpanel', { name: 'Upload' });
      await upload.getByText('Tags, folders, repos and privacy of the files added next').click();
      await upload.getByLabel('Tags (comma-separated)').fill('uploaded, console');
      await upload.getByLabel('Choose files to upload').setInputFiles([
        { name: 'moraines.txt', mimeType: 'text/plain', buffer: Buffer.from(longText()) },
        {
          name: 'heron.md',
          mimeType: 'text/markdown',
          buffer: Buffer.from('# Herons\n\nThe grey heron nests in tall trees near the lake.'),
        },
      ]);
      // A drop as the browser makes it: a DataTransfer holding a file.
      const drop = await page.evaluateHandle(`(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['<html><body><p>Otters swim in cold rivers.</p></body></html>'], 'otters.html', { type: 'text/html' }));
        return dt;
      })()`);
      await upload.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: drop });
      const rows = upload.getByRole('list', { name: 'Uploads' }).getByRole('listitem');
      for (const name of ['moraines.txt', 'heron.md', 'otters.html']) {
        const row = rows.filter({ hasText: name });
        await row.getByRole('link', { name: /^Open / }).waitFor();
        expect(await row.getByTestId('upload-state').innerText()).toBe('Done');
        expect(await row.getByRole('progressbar').getAttribute('value')).toBe('1');
      }
      expect(await severe(page)).toEqual([]);

      // Every mode finds an uploaded file.
      await page.getByRole('tab', { name: 'Search playground' }).click();
      const form = page.getByRole('form', { name: 'Search playground' });
      const results = page.getByRole('tabpanel', { name: 'Search playground' });
      for (const mode of ['HYBRID', 'SEMANTIC', 'FULLTEXT', 'BASIC']) {
        await form.getByLabel('Mode').selectOption(mode);
        if (mode === 'BASIC') await form.getByLabel('Content too (anywhere)').check();
        await form.getByLabel('Query').fill('heron nests');
        await form.getByRole('button', { name: 'Search' }).click();
        await results
          .getByRole('status')
          .filter({ hasText: `(${mode.toLowerCase()})` })
          .waitFor();
        await results.locator('.doc-hit').getByRole('link', { name: /heron/i }).first().waitFor();
      }

      // The list has them (tagged), the long one opens with its passages 20 at a time.
      await page.getByRole('tab', { name: 'Documents' }).click();
      const filters = page.getByRole('form', { name: 'Filter documents' });
      await filters.getByText('More filters').click();
      await filters.getByLabel('Tags (comma-separated)').fill('uploaded');
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await listStatus(page, '3 documents match');
      await list(page).getByRole('link', { name: 'moraines.txt' }).click();
      await page.getByRole('heading', { name: 'moraines.txt', level: 2 }).waitFor();
      const id = decodeURIComponent(new URL(page.url()).hash.replace('#/documents/', ''));
      expect(id).toMatch(/\S/);
      await page
        .getByRole('status')
        .filter({ hasText: /^20 of \d+ passages shown/ })
        .waitFor();
      const total = Number(/of (\d+) passages/.exec(await page.getByRole('status').filter({ hasText: 'passages shown' }).innerText())![1]);
      expect(total).toBeGreaterThan(20);
      expect(await page.locator('.facts').innerText()).toContain('uploaded, console');
      await page.getByRole('button', { name: 'Load more passages' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${Math.min(40, total)} of ${total} passages shown` })
        .waitFor();
      const numbers = await page
        .locator('.doc-passages > li')
        .evaluateAll((lis) => lis.map((li) => (li as unknown as { value: number }).value));
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
      expect(await severe(page)).toEqual([]);

      // Delete asks first; then the list no longer has it, and its address finds nothing.
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('group', { name: 'Delete “moraines.txt”?' }).getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted “moraines.txt”.' }).waitFor();
      await listStatus(page, '2 documents match');
      expect(await titles(page)).not.toContain('moraines.txt');
      await page.goto(`${f.platform.url}/console/#/documents/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'No such document', level: 2 }).waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('on a phone, a plain user sees the graph refuse a file too large and an unreadable one; nothing is wider than the screen', async () => {
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, values.username, values.password);
      await documentsOf(page);
      await listStatus(page, /^\d+ documents; page 1 of /);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      // By keyboard: the arrow keys move between the tabs, Space opens the file chooser.
      await page.getByRole('tab', { name: 'Documents' }).focus();
      await page.keyboard.press('ArrowRight');
      await page.getByRole('tab', { name: 'Upload', selected: true }).waitFor();
      const upload = page.getByRole('tabpanel', { name: 'Upload' });
      // The chooser is awaited before the input is focused: Playwright then intercepts it by the time Space is pressed.
      const chooser = page.waitForEvent('filechooser');
      await upload.getByLabel('Choose files to upload').focus();
      await page.keyboard.press('Space');
      await (
        await chooser
      ).setFiles([
        { name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(MAX_UPLOAD + 1024, 'a ') },
        { name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(MAX_BODY, 'b ') },
        { name: 'picture.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
      ]);
      const rows = upload.getByRole('list', { name: 'Uploads' }).getByRole('listitem');
      const big = rows.filter({ hasText: 'big.txt' });
      await big.getByRole('alert').waitFor();
      expect(await big.getByRole('alert').innerText()).toMatch(/^Too large: /);
      expect(await big.getByTestId('upload-state').innerText()).toBe('Failed');
      const huge = rows.filter({ hasText: 'huge.txt' });
      await huge.getByRole('alert').waitFor();
      expect(await huge.getByRole('alert').innerText()).toMatch(/^Too large: /);
      const png = rows.filter({ hasText: 'picture.png' });
      await png.getByRole('alert').waitFor();
      expect(await png.getByRole('alert').innerText()).toMatch(/picture\.png/);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      await upload.getByRole('button', { name: 'Clear finished' }).click();
      expect(await rows.count()).toBe(0);
      // Chromium logs the graph's 413 as a failed resource itself; nothing else was logged.
      expect(errors).toEqual(['Failed to load resource: the server responded with a status of 413 (Payload Too Large)']);
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
      // The demo tenant: the documents added here (and uploaded by the tests before).
      expect(Number((await first.getByRole('cell').first().innerText()).split(' ')[0])).toBeGreaterThanOrEqual(22);
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

  it('a realm administrator, on a phone, uploads to its tenant and sees only its own tenants', async () => {
    const token = f.platform.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'documents-other' });
    await token.admin.createUser({
      realm: other.id,
      username: 'dra',
      password: 'dra-password-1',
      roles: ['realm-admin', 'search:read', 'search:write'],
    });
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, 'dra', 'dra-password-1', 'documents-other');
      await documentsOf(page);
      await list(page).getByText('No document yet: upload one.').waitFor();
      await page.getByRole('tab', { name: 'Upload' }).click();
      const upload = page.getByRole('tabpanel', { name: 'Upload' });
      await upload.getByLabel('Choose files to upload').setInputFiles({
        name: 'realm-notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('Only this realm reads these notes.'),
      });
      await upload.getByRole('link', { name: /^Open / }).waitFor();
      await page.getByRole('tab', { name: 'Tenants' }).click();
      const tenants = page.getByRole('tabpanel', { name: 'Tenants' });
      await tenants.getByRole('rowheader', { name: other.id, exact: true }).waitFor();
      const listed = await tenants.getByRole('rowheader').allInnerTexts();
      expect(listed).toContain(other.id);
      // Its realm's id and its token's tenant: here the same one; never the default realm's.
      expect(listed.every((t) => t === other.id)).toBe(true);
      const row = tenants.getByRole('row').filter({ has: page.getByRole('rowheader', { name: other.id }) });
      // Read again after the upload (the tab was loaded before it): its one document.
      await row.getByRole('cell').first().filter({ hasText: /^1$/ }).waitFor();
      await row.getByRole('button', { name: `Reindex ${other.id}` }).click();
      await row.getByRole('button', { name: 'Yes, reindex' }).click();
      await tenants
        .getByRole('status')
        .filter({ hasText: `Re-embedded 1 passage of ${other.id}` })
        .waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
