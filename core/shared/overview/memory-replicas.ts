import type { ReplicaRow, ReplicaStore } from './replicas';

/** Rows in this process's memory: tests, and a platform built without a data directory. */
export function memoryReplicaStore(): ReplicaStore {
  const rows = new Map<string, ReplicaRow>();
  return {
    put: async (row) => void rows.set(row.id, structuredClone(row)),
    list: async () => [...rows.values()].map((r) => structuredClone(r)),
    async prune(before) {
      let pruned = 0;
      for (const [id, r] of rows) if (r.lastSeen < before && rows.delete(id)) pruned++;
      return pruned;
    },
    close: () => undefined,
  };
}
