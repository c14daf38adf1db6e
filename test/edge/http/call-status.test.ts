import { callStatus } from '../../../edge/http/call-status';
import { CallerLeft } from '../../../core/shared/cancel';
import { RateLimited, UpstreamFailed } from '../../../core/shared/errors';

describe("a model call's status in usage (the HTTP edge's StatusOf)", () => {
  it('is 200 answered, 499 when the caller left, and the status of the error it failed with', () => {
    expect(callStatus('ok')).toBe(200);
    expect(callStatus('left')).toBe(499);
    expect(callStatus({ failed: new RateLimited('slow down', 1) })).toBe(429);
    expect(callStatus({ failed: new UpstreamFailed('broke') })).toBe(502);
    // A caller who left is a 400-kind error where a transport still answers; as an end it is 'left'.
    expect(callStatus({ failed: new CallerLeft() })).toBe(400);
    expect(callStatus({ failed: new Error('a bug') })).toBe(500);
  });
});
