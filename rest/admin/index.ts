import type { AuditTrail } from '../../core/shared/admin/audit';
import { adminCredentials } from '../../core/shared/admin/access';
import { detailBody } from '../shared/http-errors';
import type { AdminFace, RestService } from '../shared/routes';
import { Msg } from '../shared/schemas';
import { auditRoutes } from './audit';
import { ADMIN_PREFIX } from './prefix';

export { ADMIN_PREFIX };

/**
 * The admin API (docs/admin.md): every service's admin routes under one prefix and one document,
 * and the audit trail. Callers present an administrator's bearer token (any of the platform's
 * audiences); a plain user or client gets 403.
 */
export function adminRest(faces: readonly AdminFace[], audit: AuditTrail): RestService {
  return {
    name: 'admin',
    title: 'Admin API',
    version: '1.0.0',
    prefix: ADMIN_PREFIX,
    errorBody: detailBody,
    credentials: adminCredentials,
    audience: undefined,
    schemas: Object.fromEntries([['Msg', Msg], ...faces.flatMap((f) => Object.entries(f.schemas ?? {}))]),
    docs: {
      description:
        'Administration of the platform: realms, clients, users, sessions, model keys, the model catalog, usage, documents and the audit trail. ' +
        'Sign in as an administrator (the first start made `admin`, role `platform-admin`: `npm run -s platform -- credentials` shows its password) ' +
        'and give its access token to **Authorize**. A realm administrator (role `realm-admin`) sees and changes only its own realm and tenants. ' +
        'Lists take `limit`, `cursor` and `sort`; updates take `If-Match` with the ETag an object was read with.',
      security: [{ bearerAuth: [] }],
    },
    routes: [...faces.flatMap((f) => f.routes), ...auditRoutes(audit)],
  };
}
