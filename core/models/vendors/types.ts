import type { CatalogModel } from '../catalog';
import type { ModelProvider } from '../neutral';
import type { Offload } from '../offload';
import type { UpstreamHttp } from '../upstream/http';

/** What an adapter gets: the environment (credentials are named by the catalog, read from here) and the pooled HTTP client. */
export interface ProviderDeps {
  env: Readonly<Record<string, string | undefined>>;
  http: UpstreamHttp;
  /** Worker threads for the built-in model's work on long prompts. */
  offload?: Offload;
}

/** An adapter: a catalog model's upstream in, the calls it can serve out. */
export type ProviderFactory = (model: CatalogModel, deps: ProviderDeps) => ModelProvider;
