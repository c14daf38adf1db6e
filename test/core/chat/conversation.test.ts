import { processQuery } from '../../../core/chat/conversation';

describe('continuation (spec behaviour 1)', () => {
  it('turns $continue_answer into continue and leaves every other query alone', () => {
    expect(processQuery('$continue_answer')).toBe('continue');
    expect(processQuery('  $continue_answer ')).toBe('continue');
    expect(processQuery('What is $continue_answer?')).toBe('What is $continue_answer?');
  });
});
