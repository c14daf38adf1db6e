import { openDatabase, type Db } from '../../shared/sqlite';
import { MODELS_MIGRATIONS } from './schema';

/** models.db (or `:memory:`), migrated; WAL, so every worker process opens the same file. */
export const openModelsDb = (file: string, opts: { durable?: boolean } = {}): Db => openDatabase(file, MODELS_MIGRATIONS, opts);
