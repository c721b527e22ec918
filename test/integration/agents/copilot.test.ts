// The release matrix of @github/copilot: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { copilot } from './recipes/copilot';

describeRecipe(copilot);
