// src/protocol: the Agent Terminal Protocol as pure functions (DESIGN.md "Layers").
// Strings and plain objects in, values out: zod only, no Node modules, no I/O.
export {};
export * from './controlFrames';
export * from './control';
export * from './resumePlan';
export * from './resumeStoreMatch';
export * from './resumeRecord';
