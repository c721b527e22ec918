// The release matrix of @openai/codex: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { codex } from './recipes/codex';

describeRecipe(codex);
