import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupCCatalog } from '../../rest/models/fixture';
import { startInTemp, type Started } from '../shared/server';

export { ANSWER, QUESTION, SOURCES } from '../../rest/models/fixture';

/** The platform with the group C catalog (`groupCCatalog`: two multimodal local models beside the default ones), for the AWS SDK over h2c. */
export async function startGroupC(): Promise<Started> {
  const file = join(tmpdir(), `catalog-group-c-${process.pid}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(groupCCatalog()));
  return startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
}
