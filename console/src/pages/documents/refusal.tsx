import type { CombinedError } from 'urql';
import { Failure } from '../../ui/states';
import { codeOf } from './graph';

const LEAD: Record<string, string> = {
  FORBIDDEN: 'Not allowed for your roles: ',
  UNAUTHENTICATED: 'Not signed in: ',
  PAYLOAD_TOO_LARGE: 'Too large: ',
};

/** The graph's refusal, its kind said first (a missing role is the graph's FORBIDDEN, not guessed from the roles here). */
export function Refusal({ error }: { error: CombinedError }) {
  const lead = LEAD[codeOf(error) ?? ''];
  if (!lead) return <Failure error={error} />;
  return <Failure error={lead + error.graphQLErrors.map((e) => e.message).join('; ')} />;
}
