// The release matrix of @mariozechner/pi-coding-agent: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { pi } from './recipes/pi';

describeRecipe(pi);
