// The release matrix of @qwen-code/qwen-code: its newest two npm releases, run for real (matrixRunner.ts).
import { describeRecipe } from './matrixRunner';
import { qwen } from './recipes/qwen';

describeRecipe(qwen);
