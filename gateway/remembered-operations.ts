/*
 * Reaches into @apollo/federation-internals (see apollo-planner.ts for what else does, and how to
 * upgrade): its `operationFromDocument` as its own module exports it, which the package's index
 * re-exports through a getter, so that @apollo/gateway's executor calls whatever that module holds.
 */
import { Kind, type DefinitionNode, type OperationDefinitionNode } from 'graphql';
import * as operations from '@apollo/federation-internals/dist/operations';

type OperationFromDocument = typeof operations.operationFromDocument;
type Remembered = {
  schema: Parameters<OperationFromDocument>[0];
  operationName: string | undefined;
  fragments: readonly DefinitionNode[];
  operation: ReturnType<OperationFromDocument>;
};

let installed = false;

/**
 * @apollo/gateway's executeQueryPlan turns the client's operation into federation's own form
 * (`operationFromDocument(apiSchema, { operation, ...fragments }, { validate: false })`) on every
 * call, only to shape the result: a third of the executor's own cost, paid again for every event of
 * a subscription and every run of a plan the gateway keeps. The same operation node, fragments
 * and schema give the same (read-only) operation, so it is remembered per operation node (a weak
 * map: forgotten with the document). Other calls (validating ones: the planner's) are left alone.
 */
export function rememberOperations(): void {
  if (installed) return;
  installed = true;
  const original: OperationFromDocument = operations.operationFromDocument;
  const remembered = new WeakMap<OperationDefinitionNode, Remembered>();
  const same = (a: readonly DefinitionNode[], b: readonly DefinitionNode[]) => a.length === b.length && a.every((d, i) => d === b[i]);
  const rememberedFromDocument: OperationFromDocument = (schema, document, options) => {
    const [first, ...fragments] = document.definitions;
    if (options?.validate !== false || first?.kind !== Kind.OPERATION_DEFINITION) return original(schema, document, options);
    const operationName = options.operationName;
    const hit = remembered.get(first);
    if (hit && hit.schema === schema && hit.operationName === operationName && same(hit.fragments, fragments)) return hit.operation;
    const operation = original(schema, document, options);
    remembered.set(first, { schema, operationName, fragments, operation });
    return operation;
  };
  (operations as { operationFromDocument: OperationFromDocument }).operationFromDocument = rememberedFromDocument;
}
