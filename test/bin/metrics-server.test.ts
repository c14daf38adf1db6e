import { coalesced } from '../../bin/metrics-server';

describe('scrapes of the metrics port', () => {
  it('share one gathering while it runs: sixty at once ask the workers once', async () => {
    let gathered = 0;
    const source = coalesced(async () => {
      gathered++;
      await new Promise((r) => setTimeout(r, 20));
      return { contentType: 'text/plain', body: `gathering ${gathered}` };
    });
    const all = await Promise.all(Array.from({ length: 60 }, () => source()));
    expect(gathered).toBe(1);
    expect(new Set(all.map((a) => a.body))).toEqual(new Set(['gathering 1']));
    // The next scrape, after that one ended, gathers anew.
    expect((await source()).body).toBe('gathering 2');
  });

  it('a failed gathering fails its scrapes and does not stick', async () => {
    let calls = 0;
    const source = coalesced(async () => {
      if (++calls === 1) throw new Error('Operation timed out.');
      return { contentType: 'text/plain', body: 'ok' };
    });
    await expect(Promise.all([source(), source()])).rejects.toThrow('Operation timed out.');
    expect((await source()).body).toBe('ok');
  });
});
