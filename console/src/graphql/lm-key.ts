/**
 * The LM key (a model key of the model gateway) the playgrounds call models with, kept in the tab's
 * sessionStorage only (never logged, gone when the tab closes). The graph reads it as the `api-key`
 * header; over graphql-ws, whose browser sockets carry no headers, from connection_init's
 * parameters (client.ts), read when a socket opens: the console's socket closes when its last
 * subscription ends, so a key changed between questions is the next question's.
 */
const KEPT = 'console:lm-key';

export const lmKey = {
  get: (): string => sessionStorage.getItem(KEPT) ?? '',
  set(key: string) {
    if (key) sessionStorage.setItem(KEPT, key);
    else sessionStorage.removeItem(KEPT);
  },
};
