// The release matrix of @kilocode/cli: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { kilo } from './recipes/kilo';

describeRecipe(kilo);
