import { print, type DocumentNode } from 'graphql';

const texts = new WeakMap<DocumentNode, string>();

/** A document's text, printed once per document object (a transport hands the same one to every subscriber of a text). */
export function printed(document: DocumentNode): string {
  let text = texts.get(document);
  if (text === undefined) texts.set(document, (text = print(document)));
  return text;
}
