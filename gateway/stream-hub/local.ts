import { streamDirectory } from './directory';
import type { HubMessage, HubReply, StreamHub } from './hub';

const SELF = 'self';

/** The streams of one process (WORKERS=1 without Redis): every request is answered here. */
export function localStreamHub(): StreamHub {
  const directory = streamDirectory();
  let handler: ((msg: HubMessage) => Promise<HubReply>) | undefined;
  return {
    reserve: async (token, owner, bounds) => directory.reserve(token, owner, bounds),
    open: async (token, owner) => directory.open(token, owner, SELF),
    async send(owner, msg, maxQueued) {
      const route = directory.route(owner, msg, maxQueued);
      if (!('deliver' in route)) return route;
      return handler ? handler(msg) : { refused: 'not_found' };
    },
    closed: async (token) => directory.drop(token),
    serve(h) {
      handler = h;
    },
    close: async () => directory.clear(),
  };
}
