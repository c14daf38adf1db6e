import { webOriginsFollower, WEB_ORIGINS_FRESH_MS, WEB_ORIGINS_RELOAD_MS } from '../../../edge/http/web-origins';

/** The registered origins as CORS reads them: read again for an unknown origin at most once a second, kept when a read fails. */
describe('webOriginsFollower', () => {
  const world = (lists: (string[] | Error)[]) => {
    let t = 0;
    let reads = 0;
    const follower = webOriginsFollower(
      async () => {
        const next = lists[Math.min(reads++, lists.length - 1)];
        if (next instanceof Error) throw next;
        return next;
      },
      () => t,
    );
    return { follower, reads: () => reads, advance: (ms: number) => (t += ms) };
  };

  it('allows a registered origin on its first request and refuses others', async () => {
    const w = world([['https://app.example']]);
    await expect(w.follower.allowed('https://app.example')).resolves.toBe(true);
    await expect(w.follower.allowed('https://evil.example')).resolves.toBe(false);
    expect(w.reads()).toBe(1);
  });

  it('reads again for an unknown origin at most once per WEB_ORIGINS_RELOAD_MS, however many ask', async () => {
    const w = world([[], ['https://new.example']]);
    await w.follower.allowed('https://x.example');
    const many = await Promise.all(Array.from({ length: 100 }, (_, i) => w.follower.allowed(`https://r${i}.example`)));
    expect(many.every((ok) => !ok)).toBe(true);
    expect(w.reads()).toBe(1);
    w.advance(WEB_ORIGINS_RELOAD_MS + 1);
    // A client registered meanwhile: its origin is allowed on its first request after the second.
    await expect(w.follower.allowed('https://new.example')).resolves.toBe(true);
    expect(w.reads()).toBe(2);
  });

  it('reads a known origin again in the background once the list is older than WEB_ORIGINS_FRESH_MS (a removed one stops)', async () => {
    const w = world([['https://app.example'], []]);
    await w.follower.allowed('https://app.example');
    w.advance(WEB_ORIGINS_FRESH_MS + 1);
    await expect(w.follower.allowed('https://app.example')).resolves.toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(w.reads()).toBe(2);
    w.advance(1);
    await expect(w.follower.allowed('https://app.example')).resolves.toBe(false);
  });

  it('keeps the last list when a read fails', async () => {
    const w = world([['https://app.example'], new Error('token service down')]);
    await w.follower.allowed('https://app.example');
    w.advance(WEB_ORIGINS_RELOAD_MS + 1);
    await expect(w.follower.allowed('https://other.example')).resolves.toBe(false);
    await expect(w.follower.allowed('https://app.example')).resolves.toBe(true);
  });
});
