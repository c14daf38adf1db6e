import { consoleFixture, describeConsole, type ConsoleFixture } from './fixture';

/**
 * The console in Chromium against a graph that runs only trusted documents
 * (GRAPHQL_TRUSTED_DOCUMENTS=refuse), with no list loaded by anyone: its own operations are the
 * platform's built-in list (docs/trusted-documents.md), so a platform administrator's pages load
 * (overview, realms with their users, models, model keys, audit, my sessions) and no answer of the graph, over
 * HTTP or graphql-ws, says PERSISTED_QUERY_NOT_LISTED; the page logs no error.
 */
jest.setTimeout(240_000);

describeConsole('the console: a graph in refuse mode', () => {
  let f: ConsoleFixture;
  beforeAll(async () => {
    f = await consoleFixture({ GRAPHQL_TRUSTED_DOCUMENTS: 'refuse' });
  }, 120_000);
  afterAll(() => f?.stop());

  it("loads an administrator's pages, nothing refused", async () => {
    const { page, errors, context } = await f.asAdmin();
    const refused: string[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/graphql')
        void r.text().then(
          (t) => t.includes('PERSISTED_QUERY_NOT_LISTED') && refused.push(t),
          () => undefined,
        );
    });
    page.on('websocket', (ws) =>
      ws.on('framereceived', (fr) => String(fr.payload).includes('PERSISTED_QUERY_NOT_LISTED') && refused.push(String(fr.payload))),
    );
    try {
      await page.getByRole('heading', { name: 'Platform' }).waitFor();
      await page
        .getByRole('table', { name: /^Services/ })
        .getByRole('cell', { name: 'Ready', exact: true })
        .first()
        .waitFor();
      // Each page with a row of what it lists: its operations ran.
      for (const [path, heading] of [
        ['realms', 'Realms'],
        ['models', 'Models'],
        ['keys', 'Model keys'],
        ['audit', 'Audit'],
        ['account', 'My sessions'],
      ] as const) {
        await page.goto(`${f.platform.url}/console/#/${path}`);
        await page.getByRole('heading', { name: heading, exact: true }).waitFor();
        await page.getByRole('table').first().getByRole('row').nth(1).waitFor();
      }
      expect(refused).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
