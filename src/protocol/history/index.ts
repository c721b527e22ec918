// Conversation history: transcript readers, the manifest's path globs and the price table.
export * from './conversation';
export * from './readers';
export * from './historyPaths';
export * from './prices';
export * from './search';
