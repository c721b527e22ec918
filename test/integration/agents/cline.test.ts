// The release matrix of cline: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { cline } from './recipes/cline';

describeRecipe(cline);
