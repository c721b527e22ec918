// src/protocol: the Agent Terminal Protocol as pure functions (docs/architecture.md, "Layers").
// Strings and plain objects in, values out: zod only, no Node modules, no I/O.
export {};
export * from './controlFrames';
export * from './control';
export * from './resumePlan';
export * from './homePath';
export * from './resumeStoreMatch';
export * from './resumeRecord';
export * from './manifestSchema';
export * from './manifestParse';
export * from './manifestJsonSchema';
// Status model, hook dialects and the hook-report wire format.
export {
  SESSION_STATES, type SessionState, isSessionState, describeWhy, compileStatusRules, classifyText, STATE_PRIORITY,
  StatusEngine, HOOK_START_GRACE_MS, HOOK_ACTIVITY_GRACE_MS,
  type StatusChannel, type StatusWhy, type HealthNote, type HealthNoteCode, type SessionStatus,
  type StatusRulesInput, type CompiledRule, type CompiledRules, type Classification,
  type StatusEngineConfig, type StatusInput,
} from './status';
export * from './hooks';
export * from './hookReport';
