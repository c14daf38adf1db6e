import { ConfigError, DEFAULT_STREAM_HEARTBEAT_MS, loadConfig } from '../../../core/shared/config';

describe('STREAM_HEARTBEAT_MS, the one heartbeat of open streams', () => {
  it('is 10 s unless set', () => {
    expect(DEFAULT_STREAM_HEARTBEAT_MS).toBe(10_000);
    expect(loadConfig({}).STREAM_HEARTBEAT_MS).toBe(10_000);
  });

  it('takes GRAPHQL_KEEPALIVE_MS, its former name, when it is unset', () => {
    expect(loadConfig({ STREAM_HEARTBEAT_MS: '5000' }).STREAM_HEARTBEAT_MS).toBe(5000);
    expect(loadConfig({ GRAPHQL_KEEPALIVE_MS: '200' }).STREAM_HEARTBEAT_MS).toBe(200);
    expect(loadConfig({ STREAM_HEARTBEAT_MS: '5000', GRAPHQL_KEEPALIVE_MS: '200' }).STREAM_HEARTBEAT_MS).toBe(5000);
  });

  it('refuses a value that is not a positive number of milliseconds up to 10 minutes', () => {
    expect(() => loadConfig({ STREAM_HEARTBEAT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ STREAM_HEARTBEAT_MS: '600001' })).toThrow(/STREAM_HEARTBEAT_MS/);
    expect(() => loadConfig({ GRAPHQL_KEEPALIVE_MS: 'soon' })).toThrow(/GRAPHQL_KEEPALIVE_MS/);
  });
});
