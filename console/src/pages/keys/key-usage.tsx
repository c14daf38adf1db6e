import { useEffect, useRef } from 'react';
import { useQuery } from 'urql';
import { Empty, Failure, Loading } from '../../ui/states';
import type { KeyRow } from './key-data';
import { USAGE } from '../../operations/keys';

interface UsageRow {
  day: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  errors: number;
}

/** A key's calls over the last 30 days (adminUsage's default), summed per UTC day over its models. */
export function KeyUsage({ which, onClose }: { which: KeyRow; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [usage] = useQuery<{ adminUsage: { items: UsageRow[]; nextCursor: string | null } }>({
    query: USAGE,
    variables: { key: which.id },
  });
  useEffect(() => heading.current?.focus(), []);
  const days = new Map<string, { requests: number; input: number; output: number; errors: number }>();
  for (const r of usage.data?.adminUsage.items ?? []) {
    const d = days.get(r.day) ?? { requests: 0, input: 0, output: 0, errors: 0 };
    d.requests += r.requests;
    d.input += r.inputTokens;
    d.output += r.outputTokens;
    d.errors += r.errors;
    days.set(r.day, d);
  }
  const total = [...days.values()].reduce(
    (t, d) => ({ requests: t.requests + d.requests, input: t.input + d.input, output: t.output + d.output, errors: t.errors + d.errors }),
    { requests: 0, input: 0, output: 0, errors: 0 },
  );
  return (
    <section className="keys-usage" aria-labelledby="keys-usage-title">
      <h2 id="keys-usage-title" ref={heading} tabIndex={-1}>
        Usage of “{which.name}” ({which.prefix}…), last 30 days
      </h2>
      {usage.fetching ? (
        <Loading what="usage" />
      ) : usage.error ? (
        <Failure error={usage.error} />
      ) : days.size === 0 ? (
        <Empty>No calls with this key in the last 30 days.</Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Calls per day (UTC) with the key {which.name}</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Requests</th>
                <th scope="col">Tokens in</th>
                <th scope="col">Tokens out</th>
                <th scope="col">Errors</th>
              </tr>
            </thead>
            <tbody>
              {[...days].map(([day, d]) => (
                <tr key={day}>
                  <td>{day}</td>
                  <td>{d.requests.toLocaleString()}</td>
                  <td>{d.input.toLocaleString()}</td>
                  <td>{d.output.toLocaleString()}</td>
                  <td>{d.errors.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                <td>{total.requests.toLocaleString()}</td>
                <td>{total.input.toLocaleString()}</td>
                <td>{total.output.toLocaleString()}</td>
                <td>{total.errors.toLocaleString()}</td>
              </tr>
            </tfoot>
          </table>
          {usage.data?.adminUsage.nextCursor && <p className="state">The first 200 rows (day × model) only.</p>}
        </div>
      )}
      <button type="button" onClick={onClose}>
        Close usage
      </button>
    </section>
  );
}
