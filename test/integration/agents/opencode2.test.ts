// The release matrix of opencode-ai: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { opencode2 } from './recipes/opencode2';

describeRecipe(opencode2);
