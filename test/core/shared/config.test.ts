import { z } from 'zod';
import { configParts } from '../../../bin/deps';
import { ConfigError, loadConfig } from '../../../core/shared/config';
import { SERVICES } from '../../../services/registry';

describe('loadConfig', () => {
  it('defaults to port 8080 on 127.0.0.1 and derives the public URL from them', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.PUBLIC_URL).toBe('http://127.0.0.1:8080');
    expect(c.PLATFORM_DATA_DIR).toBe('./data');
  });

  it('derives the public URL from a configured host and port', () => {
    expect(loadConfig({ HOST: 'api.internal', PORT: '9000' }).PUBLIC_URL).toBe('http://api.internal:9000');
  });

  it('derives a reachable public URL when listening on every interface', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).PUBLIC_URL).toBe('http://localhost:9000');
  });

  it('brackets an IPv6 host in the derived public URL', () => {
    expect(loadConfig({ HOST: '::1' }).PUBLIC_URL).toBe('http://[::1]:8080');
  });

  it('treats an empty PUBLIC_URL as unset', () => {
    expect(loadConfig({ PUBLIC_URL: '' }).PUBLIC_URL).toBe('http://127.0.0.1:8080');
  });

  it('trims trailing slashes from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://platform.example.com/' }).PUBLIC_URL).toBe('https://platform.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://platform.example.com/base//' }).PUBLIC_URL).toBe('https://platform.example.com/base');
  });

  it.each(['abc', '-1', '70000', '80.5'])('refuses PORT=%s with a ConfigError naming PORT', (port) => {
    const attempt = () => loadConfig({ PORT: port });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT/);
  });

  it('refuses a PUBLIC_URL that is not http(s), naming it', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://platform.example.com' })).toThrow(/PUBLIC_URL/);
  });

  it("names every bad variable at once, the services' own included", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'x', LOCKOUT_THRESHOLD: '0' }, configParts(SERVICES));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/PORT/);
    expect((error as Error).message).toMatch(/LOCKOUT_THRESHOLD/);
  });

  it("adds each service's settings and a SUBGRAPH_<NAME>_URL for each registered subgraph", () => {
    const parts = { schemas: [z.object({ NOTES_LIMIT: z.coerce.number().int().default(3) })], subgraphs: ['token', 'notes'] };
    const c = loadConfig({ SUBGRAPH_NOTES_URL: 'http://notes.internal:9000/graphql/', NOTES_LIMIT: '7' }, parts);
    expect(c.subgraphUrls).toEqual({ notes: 'http://notes.internal:9000/graphql' });
    expect((c as unknown as Record<string, unknown>).NOTES_LIMIT).toBe(7);
    expect(() => loadConfig({ SUBGRAPH_TOKEN_URL: 'not a url' }, parts)).toThrow(/SUBGRAPH_TOKEN_URL/);
    expect(() => loadConfig({ NOTES_LIMIT: 'many' }, parts)).toThrow(/NOTES_LIMIT/);
  });

  it('uses as many workers as cores unless WORKERS says, and takes the token issuer from PUBLIC_URL unless AUTH_ISSUER_URL says', () => {
    expect(loadConfig({}).WORKERS).toBeGreaterThanOrEqual(1);
    expect(loadConfig({ WORKERS: '3' }).WORKERS).toBe(3);
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS/);
    expect(loadConfig({}).AUTH_ISSUER_URL).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ AUTH_ISSUER_URL: 'https://auth.example/' }).AUTH_ISSUER_URL).toBe('https://auth.example');
  });

  it('serves metrics on 9464 unless METRICS_PORT says (0: off), and leaves traces off unless OTEL_TRACES_EXPORTER=otlp', () => {
    const c = loadConfig({});
    expect({
      port: c.METRICS_PORT,
      host: c.METRICS_HOST,
      tenants: c.METRICS_MAX_TENANTS,
      traces: c.OTEL_TRACES_EXPORTER,
      protocol: c.OTEL_EXPORTER_OTLP_PROTOCOL,
    }).toEqual({ port: 9464, host: undefined, tenants: 100, traces: ['none'], protocol: 'http/protobuf' });
    expect(loadConfig({ METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'OTLP' }).OTEL_TRACES_EXPORTER).toEqual(['otlp']);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow(/OTEL_TRACES_EXPORTER: otlp or none/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: http\/protobuf or http\/json/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadConfig({ OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow(/OTEL_BSP_SCHEDULE_DELAY/);
  });

  it('caps graphql-ws sockets per client address at 50 unless GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS says (a positive count)', () => {
    expect(loadConfig({}).GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS).toBe(50);
    expect(loadConfig({ GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS: '8' }).GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS).toBe(8);
    for (const bad of ['0', '-1', 'many', '2.5'])
      expect(() => loadConfig({ GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS: bad })).toThrow(/GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS/);
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});
