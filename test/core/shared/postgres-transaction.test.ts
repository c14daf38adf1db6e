import { openPool, transaction } from '../../../core/shared/postgres';
import { DATABASE_URL, describePg } from '../../shared/postgres';
import { tcpProxy, viaProxy } from '../../shared/tcp-proxy';
import { eventually } from '../../shared/wait';

describePg('a transaction whose connection dies', () => {
  it('fails the transaction (no uncaught error ending the process), drops the connection, and the pool works again after', async () => {
    const target = new URL(DATABASE_URL!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const pool = openPool(viaProxy(DATABASE_URL!, proxy.port), { max: 2, onIdleError: () => undefined });
    const uncaught: Error[] = [];
    const onUncaught = (err: Error) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      let goOn!: () => void;
      const serverGone = new Promise<void>((resolve) => (goOn = resolve));
      const running = transaction(pool, async (client) => {
        await client.query('SELECT 1');
        inside();
        // Still checked out, between two statements, when the server goes away.
        await serverGone;
        await client.query('SELECT 2');
      });
      await entered;
      proxy.down();
      goOn();
      await expect(running).rejects.toThrow();
      // The dead connection is dropped, not kept for the next caller: what it raises later has no one to reach.
      await eventually(() => pool.totalCount === 0);
      expect(uncaught).toEqual([]);
      proxy.up();
      expect(await transaction(pool, async (client) => (await client.query<{ n: number }>('SELECT 41 + 1 AS n')).rows[0].n)).toBe(42);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
      await proxy.close();
    }
  });
});
