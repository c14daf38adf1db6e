/**
 * The built-in offline model: its extractive chat (chat, tools, extractive-answer), its picture
 * (image) and its provider (provider). No wire: nothing leaves the process.
 */
export * from './provider';
export * from './chat';
export * from './tools';
export * from './image';
export * from './extractive-answer';
