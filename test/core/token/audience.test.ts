import { grantAudience, parseTargets } from '../../../core/token/audience';
import { InvalidTarget } from '../../../core/token/errors';

describe('RFC 8707 audiences of an access token', () => {
  const all = ['account', 'search', 'models', 'chat'];

  it('reads resource and audience values alike: repeated, space- or comma-separated, without duplicates', () => {
    expect(parseTargets(['search models'], ['search,chat'])).toEqual(['search', 'models', 'chat']);
    expect(parseTargets(undefined, undefined)).toEqual([]);
  });

  it('grants every service when nothing is asked, and exactly what is asked when each is known', () => {
    expect(grantAudience(all, [])).toEqual(all);
    expect(grantAudience(all, ['models'])).toEqual(['models']);
  });

  it('refuses what is not granted with invalid_target, naming it', () => {
    expect(() => grantAudience(['search'], ['search', 'models'])).toThrow(InvalidTarget);
    expect(() => grantAudience(all, ['billing'])).toThrow('Unknown audience: billing');
  });
});
