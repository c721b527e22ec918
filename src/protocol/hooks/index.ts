// Hook dialects as pure text transforms: install/uninstall our entries in an agent's config.
export * from './dialects';
export * from './hookCommand';
export * from './jsonHooks';
export * from './tomlHooks';
export * from './opencodePlugin';
export * from './hookConfigEdit';
export * from './scriptHooks';
export * from './codexTrust';
export * from './mcpConfig';
