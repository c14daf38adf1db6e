import { operation } from './operation';

export const VIEWER = operation(`query ConsoleViewer { viewer { username tenantId roles realm { name } } }`);
export const COUNTS = operation(
  `query ConsoleCounts { adminRealms(first: 1) { total } adminModelKeys(first: 1) { total } adminDocuments(first: 1) { total } }`,
);

/** A platform administrator reads everything; a realm administrator the version and the services (the graph refuses it the rest). */
export const SERVICES = 'services { name title location url healthy health ready reason }';
export const FOR_PLATFORM = operation(`query ConsolePlatformStatus($first: Int!) {
  platformStatus {
    version startedAt ${SERVICES}
    replicas { id host pid worker version startedAt lastSeenAt live serves current }
    recentErrors(first: $first) { total items { at service where code message requestId replica host pid worker } }
  }
}`);
export const FOR_REALM = operation(`query ConsolePlatformServices { platformStatus { version startedAt ${SERVICES} } }`);
