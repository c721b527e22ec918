// The release matrix of @augmentcode/auggie: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { auggie } from './recipes/auggie';

describeRecipe(auggie);
