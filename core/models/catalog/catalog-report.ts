import { deploymentsOf, isActive, type LoadedCatalog } from './catalog';

/**
 * What the start-up log says of the catalog: each model (id, provider, status, where it comes
 * from), and what will make an active one fail: a credential variable it names that is not set, a
 * vendor that needs a credential or an address the catalog does not give. Variables are named,
 * their values never shown.
 */
export function catalogReport(c: LoadedCatalog, env: Readonly<Record<string, string | undefined>>) {
  const models = c.models.map((m) => ({ id: m.id, provider: m.upstream.provider, status: m.status, from: c.sources.get(m.id) ?? 'file' }));
  const warnings: string[] = [];
  for (const m of c.models.filter(isActive)) {
    // Each deployment of a routed model is named (`model@deployment`); a model of one upstream by its id alone.
    for (const d of deploymentsOf(m)) {
      const name = m.deployments ? `${m.id}@${d.id}` : m.id;
      const { provider, credentialEnv, baseUrl } = d.upstream;
      if (credentialEnv && !env[credentialEnv]?.trim()) {
        warnings.push(
          `${name}: its credential variable ${credentialEnv} is not set; its calls fail (502 upstream_misconfigured) until it is`,
        );
      } else if (!credentialEnv && (provider === 'azure-openai' || provider === 'gemini')) {
        warnings.push(
          `${name}: ${provider} needs a key and its upstream names no credentialEnv; its calls fail (502 upstream_misconfigured)`,
        );
      }
      if (provider === 'azure-openai' && !baseUrl)
        warnings.push(`${name}: azure-openai needs the resource's baseUrl (https://<resource>.openai.azure.com)`);
    }
  }
  return { models, warnings };
}
