import { Forbidden, NotFound, Unauthenticated } from '../shared/errors';

export class MissingKey extends Unauthenticated {
  constructor() {
    super(
      'Access denied: send an LM key in the api-key header, or where your SDK sends its key (Authorization: Bearer, x-api-key, x-goog-api-key)',
      { code: 'missing_api_key' },
    );
  }
}

/** Unknown and revoked keys look the same. */
export class InvalidKey extends Unauthenticated {
  constructor() {
    super('Access denied: the api-key is not valid', { code: 'invalid_api_key' });
  }
}

export class ModelNotAllowed extends Forbidden {
  constructor(model: string) {
    super(`This key may not use the model ${JSON.stringify(model)}`, { code: 'model_not_allowed' });
  }
}

export class UnknownModel extends NotFound {
  constructor(model: string) {
    super(`The model ${JSON.stringify(model)} does not exist`, { code: 'model_not_found' });
  }
}

export class DeactivatedModel extends NotFound {
  constructor(model: string, status: string) {
    super(`The model ${JSON.stringify(model)} is not available (${status})`, { code: 'model_deactivated' });
  }
}
