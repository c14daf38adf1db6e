import type { Call } from './fixture';

const V2 = '/cl/search/api/v2';

/**
 * Four owl objects whose tags, kvp and taxonomy are given in every way the spec allows: inside
 * custom_metadata (inner), at the top level (top), neither tagged x (other), and a multipart upload
 * giving them at both levels (upload). Shared by the REST cases (custom-metadata.test.ts) and the
 * GraphQL one (test/e2e/search/graphql.test.ts), so both read the same objects.
 */
export async function addOwls(call: Call): Promise<Record<'inner' | 'top' | 'other' | 'upload', string>> {
  const ids: Record<string, string> = {};
  const add = async (name: string, body: Record<string, unknown>) => {
    const r = await call('POST', `${V2}/objects`, { body });
    expect(r.status).toBe(201);
    ids[name] = r.body.object_id;
  };
  await add('inner', {
    title: 'Barn owls',
    content: 'Owls hunt voles at dusk over the meadow.',
    custom_metadata: { tags: ['x'], kvp: { region: 'north' }, taxonomy: { domain: 'birds' }, team: 'owl' },
  });
  await add('top', { title: 'Tawny owls', content: 'Owls nest in old barns and hollow trees.', tags: ['x'] });
  await add('other', { title: 'Snowy owls', content: 'Owls of the tundra hunt lemmings.', tags: ['w'], custom_metadata: { team: 'snow' } });
  const form = new FormData();
  form.append('file', new Blob(['Little owls perch on fence posts by day.']), 'little.txt');
  form.append(
    'metadata',
    JSON.stringify({
      tags: ['z'],
      kvp: { region: 'south' },
      custom_metadata: { tags: ['y', 'z'], kvp: { region: 'east', habitat: 'farm' } },
    }),
  );
  const up = await call('POST', `${V2}/objects`, { raw: form });
  expect(up.status).toBe(201);
  ids.upload = up.body.object_id;
  return ids;
}
