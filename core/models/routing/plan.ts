import { BadRequest } from '../../shared/errors';
import { deploymentsOf, isActive, Routing, type CatalogModel, type Deployment } from '../catalog/catalog';
import { DeactivatedModel, ModelNotAllowed, UnknownModel } from '../errors';
import type { KeyCaller } from '../service';
import { mergeRouting, ROUTE_HEADER, type RouteOverride } from './route-header';

/**
 * What one call may try, in order (issue 35): the model's deployments (as the `x-platform-route`
 * header restricts and orders them), then each fallback model's (or the one deployment a
 * `model@deployment` names). Built before the first attempt, so a header naming what does not
 * exist or what the key may not use is refused before anything is sent (400 / 404 / 403); a
 * fallback the catalog names that the key may not use (or no longer active, of another kind) is
 * left out instead: the catalog's policy is the administrator's, not the caller's mistake.
 */
export interface Group {
  model: CatalogModel;
  deployments: Deployment[];
  /** Its deployments are ordered by this strategy at the call (the primary's may come from the header). */
  strategy: Routing['strategy'];
}

export interface Plan {
  /** The model the call named. */
  model: CatalogModel;
  /** Its policy with the header's fields over it. */
  policy: Routing;
  /**
   * Whether it is routed (deployments, a routing policy, or the header): then the router retries,
   * times out and cools down, and the transport does not retry. An unrouted model keeps its one
   * upstream's behaviour from before routing (the transport's retries, no cooldown).
   */
  routed: boolean;
  groups: Group[];
}

const DEFAULT_ROUTING = Routing.parse({});
const allowed = (caller: KeyCaller, id: string) => !caller.key.models || caller.key.models.includes(id);

const badTarget = (message: string) => new BadRequest(`${ROUTE_HEADER}: ${message}`, { code: 'invalid_route_config' });

export class UnknownDeployment extends BadRequest {
  constructor(model: string, deployment: string) {
    super(`The model ${JSON.stringify(model)} has no deployment ${JSON.stringify(deployment)}`, { code: 'unknown_deployment' });
  }
}

/**
 * A target (`model` or `model@deployment`) as a group of the call, checked as the header's are
 * (`strict`: it throws) or as the catalog's (undefined when it will not do).
 */
export function targetGroup(
  target: string,
  kind: CatalogModel['kind'],
  caller: KeyCaller,
  lookup: (id: string) => CatalogModel | undefined,
  strict: boolean,
): Group | undefined {
  const at = target.lastIndexOf('@');
  const [id, dep] = at > 0 ? [target.slice(0, at), target.slice(at + 1)] : [target, undefined];
  const model = lookup(id);
  const refuse = (err: Error) => {
    if (strict) throw err;
    return undefined;
  };
  if (!model) return refuse(new UnknownModel(id));
  if (!allowed(caller, id)) return refuse(new ModelNotAllowed(id));
  if (!isActive(model)) return refuse(new DeactivatedModel(id, model.status));
  if (model.kind !== kind) return refuse(badTarget(`the fallback ${id} is not a ${kind} model`));
  const all = deploymentsOf(model);
  const deployments = dep === undefined ? all : all.filter((d) => d.id === dep);
  if (!deployments.length) return refuse(new UnknownDeployment(id, dep!));
  return { model, deployments, strategy: dep === undefined ? (model.routing?.strategy ?? 'fallback') : 'fallback' };
}

/** The call's plan for `model` (checked active and allowed by the pipeline) under `caller`'s header override. */
export function planOf(model: CatalogModel, caller: KeyCaller, lookup: (id: string) => CatalogModel | undefined): Plan {
  const o: RouteOverride | undefined = caller.route;
  const policy = mergeRouting(model.routing ?? DEFAULT_ROUTING, o);
  const all = deploymentsOf(model);
  const named = (id: string) => {
    const d = all.find((x) => x.id === id);
    if (!d) throw new UnknownDeployment(model.id, id);
    return d;
  };
  const deployments = o?.deployments ? o.deployments.map(named) : all;
  const groups: Group[] = [{ model, deployments, strategy: policy.strategy }];
  for (const t of policy.fallbacks) {
    const g = targetGroup(t, model.kind, caller, lookup, o?.fallbacks !== undefined);
    if (g) groups.push(g);
  }
  const routed = !!(model.deployments || model.routing || o);
  // An unrouted model's one upstream is retried by the transport, as before routing: never by both.
  const own = routed ? policy : { ...policy, retry: { ...policy.retry, attempts: 0 } };
  return { model, policy: own, routed, groups };
}
