// The release matrix of @anthropic-ai/claude-code: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { claude } from './recipes/claude';

describeRecipe(claude);
