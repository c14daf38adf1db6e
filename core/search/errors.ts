import { Conflict, NotFound } from '../shared/errors';

/** Another tenant's object, a deleted one or someone else's private one: all look the same. */
export class ObjectNotFound extends NotFound {
  constructor() {
    super('Object not found', { code: 'object_not_found' });
  }
}

export class ObjectQuotaReached extends Conflict {
  constructor(readonly limit: number) {
    super(`This tenant already holds ${limit} objects, the most allowed (SEARCH_MAX_OBJECTS_PER_TENANT); delete some first`, {
      code: 'object_quota_reached',
    });
  }
}
