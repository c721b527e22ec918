// The release matrix of @continuedev/cli: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { continueCli } from './recipes/continue';

describeRecipe(continueCli);
