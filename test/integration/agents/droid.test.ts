// The release matrix of @factory/cli: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { droid } from './recipes/droid';

describeRecipe(droid);
