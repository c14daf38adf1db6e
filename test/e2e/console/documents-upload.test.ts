import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';
import { documentsOf, list, listStatus, titles } from './documents-page';

/**
 * The console's Documents page (#/documents) in Chromium, uploading: files by the file input and
 * by a drop, each with its progress to the end, found in every search mode; one opened with its
 * passages read page by page, then deleted after a confirmation; the graph's refusal of files too
 * large (the search service's limit and the graph's body limit) and unreadable, on a phone, by
 * keyboard; a realm administrator uploads to its tenant and sees only its own tenants. No serious
 * axe violation, no console error.
 */
jest.setTimeout(180_000);

/**
 * Small limits, so "too large" is cheap: a file over 64 KiB is the search service's refusal
 * (PAYLOAD_TOO_LARGE in the graph's answer), a request over 256 KiB the graph's (HTTP 413).
 */
const MAX_UPLOAD = 64 * 1024;
const MAX_BODY = 256 * 1024;

/** Words enough for more than 20 passages (200-word windows overlapping by 40). */
const longText = () =>
  Array.from({ length: 4200 }, (_, i) => (i % 12 === 11 ? `moraine${i}.` : ['ice', 'snow', 'rock', 'valley', 'melt'][i % 5])).join(' ');

describeConsole('the console: uploading documents', () => {
  let f: ConsoleFixture;
  let values: Record<string, string>;

  beforeAll(async () => {
    f = await consoleFixture({ SEARCH_MAX_UPLOAD_BYTES: String(MAX_UPLOAD), GRAPHQL_MAX_BODY_BYTES: String(MAX_BODY) });
    values = f.values;
  }, 120_000);
  afterAll(() => f?.stop());

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
