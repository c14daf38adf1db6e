import { operation } from './operation';

export const STREAM = operation(`subscription ConsoleAnswer($input: AskInput!) {
  answerStream(input: $input) {
    response generatedSearchText finishReason model { id }
    sources { citation title fileName category score text document { id } }
  }
}`);
