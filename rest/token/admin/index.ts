import type { TokenAdminApi } from '../../../core/token/admin-api';
import type { Route } from '../../shared/routes';
import { clientRoutes } from './clients';
import { realmRoutes } from './realms';
import { tokenAdminSchemas } from './schemas';
import { sessionRoutes } from './sessions';
import { userRoutes } from './users';

/** The token service's part of the admin API (its module's `admin` face): realms, clients, users, sessions, paths relative to /admin/api/v1. */
export const tokenAdminFace = (api: TokenAdminApi): { routes: Route[]; schemas: typeof tokenAdminSchemas } => ({
  routes: [...realmRoutes(api), ...clientRoutes(api), ...userRoutes(api), ...sessionRoutes(api)],
  schemas: tokenAdminSchemas,
});
