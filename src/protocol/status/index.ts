// The status model: four states, channel precedence, title/screen classifiers.
export * from './sessionState';
export * from './statusRules';
export * from './statusEngine';
