import type { CombinedError } from 'urql';

/** What every page shows while it loads, when it has nothing, and when the graph refused. */
export const Loading = ({ what }: { what: string }) => (
  <p className="state" role="status" aria-live="polite">
    Loading {what}…
  </p>
);

export const Empty = ({ children }: { children: React.ReactNode }) => <p className="state">{children}</p>;

export function Failure({ error }: { error: CombinedError | Error | string }) {
  const text =
    typeof error === 'string'
      ? error
      : 'graphQLErrors' in error && error.graphQLErrors.length
        ? error.graphQLErrors.map((e) => e.message).join('; ')
        : error.message;
  return (
    <p className="state error" role="alert">
      {text}
    </p>
  );
}
