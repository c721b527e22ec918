// The status model: four states, channel precedence, title/screen classifiers.
export * from './sessionState';
export * from './statusRules';
export * from './statusEngine';
export { failureFromPayload, failureFromExit, lastScreenLine, formatClock, FAILURE_KINDS, MAX_FAILURE_REASON_CHARS } from './failureReason';
