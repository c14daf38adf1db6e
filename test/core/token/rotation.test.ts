import { decodeProtectedHeader } from 'jose';
import { createTokenVerifier, issuerBaseFor } from '../../../core/shared/auth/verifier';
import { AuthenticationFailed } from '../../../core/token/errors';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../../shared/helpers';

describe('rotating a realm signing key and a client secret', () => {
  let fx: TokenFixture;
  beforeEach(async () => {
    fx = await tokenFixture();
  });
  afterEach(() => fx.core.close());

  it('signs new tokens with the new key while tokens signed with the old key keep verifying', async () => {
    const before = await fx.core.service.issueForClient({ realm: fx.realm, ...fx.client });
    const oldKid = decodeProtectedHeader(before.access_token).kid;

    const rotated = await fx.core.admin.rotateRealmKey(fx.realm);
    expect(rotated).toMatchObject({ realm: fx.realm, keys: 2 });
    expect(rotated.kid).not.toBe(oldKid);

    const after = await fx.core.service.issueForClient({ realm: fx.realm, ...fx.client });
    expect(decodeProtectedHeader(after.access_token).kid).toBe(rotated.kid);
    expect((await fx.core.service.jwks({ realm: fx.realm })).keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());

    for (const token of [before.access_token, after.access_token]) {
      expect(await fx.core.service.introspect({ realm: fx.realm, token })).toMatchObject({ active: 'true' });
    }
    const verifier = createTokenVerifier({
      issuerBase: issuerBaseFor(PUBLIC_URL),
      clock: fx.clock,
      keys: { key: (realm, kid) => fx.core.keys.verificationKey(realm, kid) },
    });
    await expect(verifier.verify(before.access_token)).resolves.toMatchObject({ clientId: 'svc-a' });
    await expect(verifier.verify(after.access_token)).resolves.toMatchObject({ clientId: 'svc-a' });
  });

  it('refuses the old client secret at once, even one verified moments before, and accepts the new one', async () => {
    await fx.core.service.issueForClient({ realm: fx.realm, ...fx.client });
    const { client_secret } = await fx.core.admin.rotateClientSecret(fx.realm, 'svc-a');
    expect(client_secret).not.toBe(fx.client.client_secret);
    await expect(fx.core.service.issueForClient({ realm: fx.realm, ...fx.client })).rejects.toBeInstanceOf(AuthenticationFailed);
    await expect(fx.core.service.issueForClient({ realm: fx.realm, client_id: 'svc-a', client_secret })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('has no secret to rotate for the public login client', async () => {
    await expect(fx.core.admin.rotateClientSecret(fx.realm, 'platform-login')).rejects.toThrow(/no confidential client/);
  });
});
