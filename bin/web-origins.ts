import { webOriginsFollower, type WebOrigins } from '../edge/http/web-origins';
import type { ServiceInstance, ServiceModule, SharedDeps } from '../services/shared/module';

type Opened = { module: ServiceModule; instance: ServiceInstance };

/**
 * The registered web origins CORS allows: from a service of this process that keeps them (the token
 * service), else from that service's public list where it runs (AUTH_ISSUER_URL); none without it.
 */
export function webOriginsOf(modules: readonly ServiceModule[], opened: readonly Opened[], deps: SharedDeps): WebOrigins | undefined {
  const own = opened.map((o) => o.instance.webOrigins).find((f) => f !== undefined);
  if (own) return webOriginsFollower(own);
  const keeper = modules.find((m) => m.webOriginsReader !== undefined);
  return keeper ? webOriginsFollower(keeper.webOriginsReader!(deps)) : undefined;
}
