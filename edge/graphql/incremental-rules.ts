import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isListType,
  Kind,
  type ASTVisitor,
  type DirectiveNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

const argument = (directive: DirectiveNode, name: string) => directive.arguments?.find((a) => a.name.value === name)?.value;

/**
 * What the incremental delivery proposal asks of `@defer` and `@stream` beyond their declarations
 * (graphql-js 17's DeferStreamDirectiveLabelRule, StreamDirectiveOnListFieldRule): a label is a
 * literal string, unique in the document (a client tells its parts apart by it); `@stream` sits on
 * a list field; a literal `initialCount` is not negative. graphql-js 16 declares neither directive,
 * so nothing checks these without this rule.
 */
export const IncrementalDeliveryRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const labels = new Map<string, DirectiveNode>();
  return {
    Directive(node) {
      const name = node.name.value;
      if (name !== 'defer' && name !== 'stream') return;
      const label = argument(node, 'label');
      if (label && label.kind !== Kind.STRING)
        context.reportError(new GraphQLError(`The label of @${name} must be a string literal, not a variable.`, { nodes: label }));
      else if (label) {
        const seen = labels.get(label.value);
        if (seen)
          context.reportError(
            new GraphQLError(`The label "${label.value}" of @${name} is used twice: labels must be unique.`, { nodes: [seen, node] }),
          );
        else labels.set(label.value, node);
      }
      if (name !== 'stream') return;
      const field = context.getFieldDef();
      if (field && !isListType(getNullableType(field.type)))
        context.reportError(
          new GraphQLError(`@stream applies to list fields only; "${field.name}" is ${String(getNamedType(field.type))}, not a list.`, {
            nodes: node,
          }),
        );
      const initial = argument(node, 'initialCount');
      if (initial?.kind === Kind.INT && Number(initial.value) < 0)
        context.reportError(new GraphQLError('The initialCount of @stream must not be negative.', { nodes: initial }));
    },
  };
};
