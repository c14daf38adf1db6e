import { operation } from './operation';

export const SESSIONS = operation(`query ConsoleMySessions($after: String) {
  viewer { sessions(first: 25, after: $after) { items { id authTime createdAt expiresAt current } nextCursor total } }
}`);
export const END = operation(`mutation ConsoleEndMySession($id: ID!) { endViewerSession(id: $id) }`);
export const END_ALL = operation(`mutation ConsoleEndMySessions { endViewerSessions }`);
