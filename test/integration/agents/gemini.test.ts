// The release matrix of @google/gemini-cli: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { gemini } from './recipes/gemini';

describeRecipe(gemini);
