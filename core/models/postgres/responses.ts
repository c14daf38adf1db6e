import type { PgPool } from '../../shared/postgres';
import type { ResponseItem, ResponseStore, StoredResponse } from '../ports';

interface ResponseRow {
  id: string;
  tenant: string;
  created_at: Date;
  expires_at: Date;
  response: StoredResponse['response'];
  input: ResponseItem[];
}

const toStored = (r: ResponseRow): StoredResponse => ({
  id: r.id,
  tenant: r.tenant,
  createdAt: r.created_at.getTime(),
  expiresAt: r.expires_at.getTime(),
  response: r.response,
  input: r.input,
});

/**
 * The stored Responses API responses in PostgreSQL (`models_responses`, their output items in
 * `models_response_items`, deleted with them), shared by every replica. Every read names the
 * tenant and leaves out what had expired; `prune` deletes it.
 */
export function pgResponseStore(pool: PgPool): ResponseStore {
  return {
    put: async (r) => {
      // One statement: the response and its items are kept together or not at all.
      await pool.query({
        name: 'models.responses.put',
        text: `WITH r AS (INSERT INTO models_responses (id, tenant, created_at, expires_at, response, input) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
          INSERT INTO models_response_items (id, tenant, response_id, item) SELECT e ->> 'id', $2, r.id, e FROM r, jsonb_array_elements($5::jsonb -> 'output') e`,
        values: [r.id, r.tenant, new Date(r.createdAt), new Date(r.expiresAt), JSON.stringify(r.response), JSON.stringify(r.input)],
      });
    },
    get: async (tenant, id, now) => {
      const { rows } = await pool.query<ResponseRow>({
        name: 'models.responses.get',
        text: 'SELECT * FROM models_responses WHERE tenant = $1 AND id = $2 AND expires_at > $3',
        values: [tenant, id, new Date(now)],
      });
      return rows[0] ? toStored(rows[0]) : undefined;
    },
    items: async (tenant, ids, now) => {
      if (!ids.length) return new Map();
      const { rows } = await pool.query<{ id: string; item: ResponseItem }>({
        name: 'models.responses.items',
        text: `SELECT i.id, i.item FROM models_response_items i JOIN models_responses r ON r.id = i.response_id
          WHERE i.tenant = $1 AND r.expires_at > $2 AND i.id = ANY($3::text[])`,
        values: [tenant, new Date(now), [...ids]],
      });
      return new Map(rows.map((r) => [r.id, r.item]));
    },
    delete: async (tenant, id, now) => {
      const r = await pool.query({
        name: 'models.responses.delete',
        text: 'DELETE FROM models_responses WHERE tenant = $1 AND id = $2 AND expires_at > $3',
        values: [tenant, id, new Date(now)],
      });
      return (r.rowCount ?? 0) > 0;
    },
    prune: async (now) => {
      const r = await pool.query({
        name: 'models.responses.prune',
        text: 'DELETE FROM models_responses WHERE expires_at <= $1',
        values: [new Date(now)],
      });
      return r.rowCount ?? 0;
    },
  };
}
