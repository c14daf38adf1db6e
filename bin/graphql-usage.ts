/** `platform graphql ...`'s help lines (bin/trusted-documents.ts runs it; kept apart so the help loads nothing of it). */
export const GRAPHQL_USAGE = [
  "platform graphql documents load <file> [--name APP]   load an app's trusted documents (Apollo persisted query list",
  "       or persisted-documents.json), replacing its list; APP defaults to the file's name",
  "platform graphql documents list                       the apps' trusted document lists",
  "platform graphql documents remove <APP>               remove an app's list",
];
