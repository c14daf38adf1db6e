import { useEffect, useMemo, useRef } from 'react';
import { useClient, type AnyVariables, type OperationResult } from 'urql';

/**
 * A page's one running subscription (a streamed answer, over graphql-ws: client.ts): `start`
 * subscribes (ending one still running), `stop` ends it, and with it the model call behind it (the
 * graph stops the call when its subscriber completes). Leaving the page ends it too.
 */
export function useStream() {
  const client = useClient();
  const running = useRef<{ unsubscribe(): void }>();
  useEffect(() => () => running.current?.unsubscribe(), []);
  return useMemo(
    () => ({
      start<T>(query: string, variables: AnyVariables, onResult: (result: OperationResult<T>) => void) {
        running.current?.unsubscribe();
        running.current = client.subscription<T>(query, variables).subscribe(onResult);
      },
      stop() {
        running.current?.unsubscribe();
        running.current = undefined;
      },
    }),
    [client],
  );
}
