/**
 * Every module of this folder, imported for the operations each declares: what the build evaluates
 * (in Node.js, console/trusted-manifest.mts) to write the console's trusted documents.
 */
import.meta.glob('./*.ts', { eager: true });

export { declaredOperations } from './operation';
