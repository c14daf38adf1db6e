import request from 'supertest';
import { tokenFixture, type TokenFixture } from '../../shared/helpers';

const PREFIX = '/auth/api/v1';
const SPEC_PATHS = ['/healthz', '/oauth/connect/token', '/oauth/connect/user/login', '/oauth/connect/introspect'].map((p) => PREFIX + p);
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type Parameter = { name: string; in: string; required: boolean; schema: Record<string, unknown> };
type OpenApi = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<
      string,
      { parameters: Parameter[]; responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }
    >
  >;
  components: { schemas: Record<string, { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
};

let f: TokenFixture;
beforeAll(async () => {
  f = await tokenFixture({ bodyLimitBytes: 1024 });
});

describe('unknown paths and wrong methods', () => {
  it.each([
    ['get', '/nope'],
    ['post', '/nope'],
    ['get', `${PREFIX}/nope`],
    ['post', `${PREFIX}/oauth/connect/tokens`],
    ['get', `${PREFIX}/realms`],
  ] as const)('answers %s %s with a JSON 404', async (method, path) => {
    const res = await request(f.app)[method](path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });

  it.each([
    ['get', '/oauth/connect/token', 'POST'],
    ['put', '/oauth/connect/user/login', 'POST'],
    ['get', '/oauth/connect/introspect', 'POST'],
    ['delete', '/oauth/connect/revoke', 'POST'],
    ['post', '/healthz', 'GET, HEAD'],
    ['delete', '/openapi.json', 'GET, HEAD'],
    ['post', '/docs', 'GET, HEAD'],
    ['put', `/realms/${'00000000-0000-4000-8000-000000000000'}/protocol/openid-connect/certs`, 'GET, HEAD'],
  ] as const)('answers %s on %s with 405 and Allow: %s', async (method, path, allow) => {
    const res = await request(f.app)[method](PREFIX + path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
  });

  it('answers HEAD on a GET path without a body', async () => {
    const res = await request(f.app).head(`${PREFIX}/healthz`);
    expect(res.status).toBe(200);
    expect(res.text ?? '').toBe('');
  });
});

describe('x-request-id', () => {
  const requests: [string, () => request.Test][] = [
    ['a 200', () => request(f.app).get(`${PREFIX}/healthz`)],
    ['a token 200', () => request(f.app).post(`${PREFIX}/oauth/connect/token`).query(f.client)],
    ['a 400', () => request(f.app).post(`${PREFIX}/oauth/connect/token`).set('Content-Type', 'application/json').send('{')],
    ['a 401', () => request(f.app).post(`${PREFIX}/oauth/connect/token`).query({ client_id: 'nobody', client_secret: 'x' })],
    ['a 404', () => request(f.app).get('/nope')],
    ['a 405', () => request(f.app).get(`${PREFIX}/oauth/connect/token`)],
    [
      'a 413',
      () =>
        request(f.app)
          .post(`${PREFIX}/oauth/connect/token`)
          .send({ pad: 'x'.repeat(2000) }),
    ],
    ['a 422', () => request(f.app).post(`${PREFIX}/oauth/connect/token`)],
    ['a docs asset', () => request(f.app).get('/_assets/swagger-ui/docs-init.js')],
  ];

  it.each(requests)('is set on %s', async (_label, send) => {
    const res = await send();
    expect(res.headers['x-request-id']).toEqual(expect.stringMatching(SAFE_ID));
  });

  it.each(requests)('echoes a well-formed incoming id on %s', async (_label, send) => {
    const res = await send().set('x-request-id', 'trace-42.abc:DEF_9');
    expect(res.headers['x-request-id']).toBe('trace-42.abc:DEF_9');
  });

  it.each([
    ['spaces', 'has spaces in it'],
    ['markup', '<script>alert(1)</script>'],
    ['over 128 characters', 'a'.repeat(129)],
    ['a slash', 'a/b'],
  ])('replaces an incoming id with %s by a fresh well-formed one', async (_label, incoming) => {
    const res = await request(f.app).get(`${PREFIX}/healthz`).set('x-request-id', incoming);
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toEqual(expect.stringMatching(SAFE_ID));
    expect(res.headers['x-request-id']).not.toBe(incoming);
  });

  it('gives each request its own id', async () => {
    const a = await request(f.app).get(`${PREFIX}/healthz`);
    const b = await request(f.app).get(`${PREFIX}/healthz`);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('GET /auth/api/v1/healthz', () => {
  it('answers {"msg":"ok"} as JSON', async () => {
    const res = await request(f.app).get(`${PREFIX}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ msg: 'ok' });
  });

  it('ignores query parameters', async () => {
    const res = await request(f.app).get(`${PREFIX}/healthz`).query({ realm: 'whatever', verbose: '1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'ok' });
  });

  it.each([
    ['malformed JSON', 'application/json', '{bad'],
    ['a corrupt gzip body', 'application/json', 'not gzip'],
    ['an oversized form', 'application/x-www-form-urlencoded', 'a='.padEnd(3_000_000, 'x')],
  ])('answers 200 whatever the body: %s', async (_name, type, body) => {
    for (const path of [`${PREFIX}/healthz`, '/healthz']) {
      let req = request(f.app).get(path).set('content-type', type);
      if (_name.includes('gzip')) req = req.set('content-encoding', 'gzip');
      const res = await req.send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ msg: 'ok' });
    }
  });
});

describe("GET /healthz (the platform's)", () => {
  it.each(['put', 'post', 'delete', 'patch'] as const)('answers %s with 405 and Allow', async (method) => {
    const res = await request(f.app)[method]('/healthz');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('GET /auth/api/v1/openapi.json', () => {
  let doc: OpenApi;
  beforeAll(async () => {
    const res = await request(f.app).get(`${PREFIX}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body as OpenApi;
  });

  const params = (path: string, method = 'post') => Object.fromEntries(doc.paths[PREFIX + path][method].parameters.map((p) => [p.name, p]));

  it('is OpenAPI 3.1 describing the token service at version 1.2.3', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.2.3');
    expect(typeof doc.info.title).toBe('string');
  });

  it("says where the first start's demo credentials are, and how to print them", () => {
    const d = (doc.info as { description?: string }).description;
    expect(d).toContain('`data/bootstrap.json`');
    expect(d).toContain('`npm run -s platform -- credentials`');
  });

  it('lists the four spec paths with their methods', () => {
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(SPEC_PATHS));
    expect(Object.keys(doc.paths[`${PREFIX}/healthz`])).toEqual(['get']);
    for (const path of SPEC_PATHS.slice(1)) expect(Object.keys(doc.paths[path])).toEqual(['post']);
  });

  it("describes the token endpoint's query parameters, client_id and client_secret required", () => {
    const p = params('/oauth/connect/token');
    expect(Object.keys(p)).toEqual(expect.arrayContaining(['realm', 'client_id', 'client_secret', 'grant_type', 'scopes']));
    for (const name of ['realm', 'client_id', 'client_secret', 'grant_type', 'scopes']) expect(p[name].in).toBe('query');
    expect(p.client_id.required).toBe(true);
    expect(p.client_secret.required).toBe(true);
    expect(p.realm.required).toBe(false);
    expect(p.realm.schema).toMatchObject({ type: 'string', format: 'uuid' });
    expect(p.grant_type.required).toBe(false);
    expect(p.scopes.required).toBe(false);
  });

  it("describes the login endpoint's query parameters", () => {
    const p = params('/oauth/connect/user/login');
    expect(Object.keys(p)).toEqual(expect.arrayContaining(['realm', 'username', 'password', 'grant_type', 'scopes']));
    for (const name of ['realm', 'username', 'password', 'grant_type', 'scopes']) expect(p[name].in).toBe('query');
    expect(p.realm.required).toBe(false);
  });

  it('describes the introspection parameters, realm required and token optional', () => {
    const p = params('/oauth/connect/introspect');
    expect(p.realm).toMatchObject({ in: 'query', required: true });
    expect(p.token).toMatchObject({ in: 'query', required: false });
  });

  it('has the HTTPValidationError and ValidationError components, the 422 of every input endpoint referring to it', () => {
    const { ValidationError, HTTPValidationError } = doc.components.schemas;
    expect(ValidationError).toMatchObject({
      type: 'object',
      properties: { loc: { type: 'array' }, msg: { type: 'string' }, type: { type: 'string' } },
    });
    expect(ValidationError.required).toEqual(expect.arrayContaining(['loc', 'msg', 'type']));
    expect(HTTPValidationError).toMatchObject({ type: 'object', properties: { detail: { type: 'array' } } });
    for (const path of SPEC_PATHS.slice(1)) {
      expect(doc.paths[path].post.responses['422'].content!['application/json'].schema).toEqual({
        $ref: '#/components/schemas/HTTPValidationError',
      });
    }
  });

  it("names the spec's other schemas", () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Msg', 'TokenRequest', 'UserLoginRequest']));
    expect(doc.paths[`${PREFIX}/healthz`].get.responses['200'].content!['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Msg',
    });
  });
});

describe('GET /auth/api/v1/docs', () => {
  it('is an HTML page whose scripts, stylesheets and OpenAPI document all load', async () => {
    const page = await request(f.app).get(`${PREFIX}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);

    const scripts = [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    const styles = [...page.text.matchAll(/<link[^>]*\shref="([^"]+)"/g)].map((m) => m[1]);
    const openapi = [...page.text.matchAll(/data-openapi="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    expect(openapi).toEqual([`${PREFIX}/openapi.json`]);

    for (const src of scripts) {
      const res = await request(f.app).get(src);
      expect({ src, status: res.status }).toEqual({ src, status: 200 });
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.text.length).toBeGreaterThan(0);
    }
    for (const href of styles) {
      const res = await request(f.app).get(href);
      expect({ href, status: res.status }).toEqual({ href, status: 200 });
      expect(res.headers['content-type']).toMatch(/^text\/css/);
    }
    const spec = await request(f.app).get(openapi[0]);
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\.1\./);
  });

  it('serves a script that defines Swagger UI and one that starts it', async () => {
    const page = await request(f.app).get(`${PREFIX}/docs`);
    const scripts = await Promise.all(
      [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map(async (m) => (await request(f.app).get(m[1])).text),
    );
    expect(scripts.some((js) => /\.SwaggerUIBundle\s*=/.test(js))).toBe(true);
    expect(scripts.some((js) => /SwaggerUIBundle\(\s*\{/.test(js) && js.includes('data-openapi'))).toBe(true);
  });
});
