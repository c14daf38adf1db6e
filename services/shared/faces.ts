import type { Logger } from 'pino';
import { noCredentials, type CredentialTools } from '../../core/shared/auth/credentials';
import { callsFor, type SubgraphEdge } from '../../edge/graphql/calls';
import { buildSubgraph, type Subgraph } from '../../edge/graphql/subgraph';
import type { AdminFace, RestService } from '../../rest/shared/routes';
import { adminRest } from '../../rest/admin';
import { audienceOf, type ServiceInstance, type ServiceModule, type SharedDeps } from './module';

/**
 * A service's faces as the platform mounts them: each gets the module's declaration of how callers
 * are established, so its REST routes and its subgraph's resolvers resolve `ctx.caller` the same way.
 */
const toolsOf = (module: ServiceModule, deps: SharedDeps): CredentialTools => ({ verifier: deps.verifier, audience: audienceOf(module) });

export function restFace(module: ServiceModule, instance: ServiceInstance, deps: SharedDeps): RestService | undefined {
  if (!module.rest) return undefined;
  return {
    ...module.rest(instance, deps),
    name: module.name,
    audience: audienceOf(module),
    credentials: module.credentials?.(instance) ?? noCredentials,
  };
}

/**
 * The admin API of the services opened here (their admin routes, `extra` faces such as the gateway's
 * trusted documents, and the audit trail); none when no service is.
 */
export function adminFace(
  opened: readonly { module: ServiceModule; instance: ServiceInstance }[],
  deps: SharedDeps,
  extra: readonly AdminFace[] = [],
): RestService | undefined {
  if (opened.length === 0) return undefined;
  return adminRest(
    [...opened.flatMap(({ module, instance }) => (module.admin ? [module.admin(instance, deps)] : [])), ...extra],
    deps.audit,
  );
}

export function subgraphEdge(module: ServiceModule, instance: ServiceInstance, deps: SharedDeps): SubgraphEdge<unknown> {
  const tools = toolsOf(module, deps);
  return {
    callOf: callsFor(module.name, module.credentials?.(instance) ?? noCredentials, tools),
    callsFor: (credentials, audience) =>
      callsFor(`${module.name} ${credentials.kind} ${audience ?? '*'}`, credentials, { ...tools, audience }),
  };
}

export function subgraphFace(module: ServiceModule, instance: ServiceInstance, deps: SharedDeps, log: Logger): Subgraph | undefined {
  if (!module.subgraph) return undefined;
  return buildSubgraph(module.name, module.subgraph.sdl(), module.subgraph.resolvers(instance, subgraphEdge(module, instance, deps)), log);
}
