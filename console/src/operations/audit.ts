import { operation } from './operation';

export const EVENTS =
  operation(`query ConsoleAuditEvents($from: String, $to: String, $actor: String, $realm: String, $type: String, $outcome: String, $after: String) {
  auditEvents(from: $from, to: $to, actor: $actor, realm: $realm, type: $type, outcome: $outcome, first: 50, after: $after) {
    items { id time type outcome actor { kind realm id name } realm tenant target { kind id } address service reason details }
    nextCursor
  }
}`);
export const REALMS = operation(`query ConsoleAuditRealms { adminRealms(first: 200) { items { realm name } } }`);
