// Questions a blocked agent asks, read from its hooks or its screen (see question.ts).
export * from './question';
export { questionFromScreen } from './questionScreen';
export { questionFromHook, tuiOf } from './questionHook';
