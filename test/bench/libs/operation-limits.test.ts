import { DOCUMENTS, ourPreparer } from '../../../bench/libs/operation-limits';

// What `npm run bench:libs` times for the platform: each document meets the refusal it is named for.
describe('bench:libs documents, through the platform guard', () => {
  const outcome = ourPreparer();
  const expected: Record<string, string> = {
    'benign (15 fields, a fragment, a variable)': 'accepted',
    'deep (300 levels)': 'QUERY_TOO_DEEP',
    'aliases (1,500)': 'TOO_MANY_ALIASES',
    'directives (700 on one field)': 'GRAPHQL_VALIDATION_FAILED (101 errors)',
    'repeated field (4,900, over the cost limit)': 'QUERY_TOO_COSTLY',
    'repeated field (1,900, under every limit)': 'GRAPHQL_VALIDATION_FAILED',
    'fragment bomb (2^30 fields expanded)': 'QUERY_TOO_COSTLY',
    'tokens (100,000)': 'QUERY_TOO_LARGE',
  };

  it('has one expectation per document', () => {
    expect(DOCUMENTS.map((d) => d.name).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(DOCUMENTS.map((d) => [d.name, d.query]))('%s', (name, query) => {
    expect(outcome(query)).toBe(expected[name]);
  });
});
