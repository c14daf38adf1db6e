import { UpstreamFailed } from '../../shared/errors';
import type { CatalogModel } from '../catalog/catalog';
import type { Env } from '../upstream/spec';

/**
 * The upstream credential of a catalog model: the value of the environment variable its catalog
 * entry names (the catalog never holds the credential itself). Read at each call, so a rotated
 * variable needs no restart of the adapter. A variable named but empty is the gateway's
 * misconfiguration (502), worded without the variable's value; `required` makes its absence one too.
 */
export function credentialOf(model: CatalogModel, env: Env, vendor: string, required: boolean): string | undefined {
  const name = model.upstream.credentialEnv;
  const value = name ? env[name]?.trim() : undefined;
  if (value) return value;
  if (name || required) {
    throw new UpstreamFailed(`The gateway has no credential for ${vendor} (model ${model.id}); its upstream configuration needs fixing`, {
      code: 'upstream_misconfigured',
    });
  }
  return undefined;
}

/** A base URL without its trailing slashes, so paths join with one. */
export const trimBase = (url: string) => url.replace(/\/+$/, '');
