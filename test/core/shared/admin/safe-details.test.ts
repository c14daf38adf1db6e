import { safeDetails } from '../../../../core/shared/admin/audit';

describe("an audit event's details", () => {
  it('never keep a value named like a secret, in any spelling', () => {
    const kept = safeDetails({
      password: 'hunter22',
      client_secret: 's',
      clientSecret: 's',
      api_key: 'k',
      apiKey: 'k',
      'access-token': 't',
      refresh_token: 't',
      token: 't',
      password_hash: 'h',
      Authorization: 'Bearer x',
      cookie: 'c',
      credentials: 'c',
    });
    expect(kept).toEqual({});
  });

  it('keep harmless fields that merely look alike, capped in size', () => {
    const kept = safeDetails({
      passages: 3,
      token_budget: 1000,
      input_tokens: 5,
      fields: ['roles'],
      name: 'x'.repeat(600),
      gone: undefined,
    });
    expect(kept).toEqual({ passages: 3, token_budget: 1000, input_tokens: 5, fields: ['roles'], name: 'x'.repeat(512) });
  });
});
