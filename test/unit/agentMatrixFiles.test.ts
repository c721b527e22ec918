// Every agent recipe runs in the release matrix: each file in test/integration/agents/recipes has
// its one-line test file beside the runner (one file per agent, so one agent can be run alone),
// calling describeRecipe with that recipe.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const dir = join(__dirname, '..', 'integration', 'agents');

it('gives every recipe a test file that runs it', () => {
  const recipes = readdirSync(join(dir, 'recipes')).filter((f) => f.endsWith('.ts'));
  expect(recipes.length).toBeGreaterThan(0);
  for (const file of recipes) {
    const id = file.replace(/\.ts$/, '');
    const test = join(dir, `${id}.test.ts`);
    expect(existsSync(test), `${id}.test.ts beside the matrix runner`).toBe(true);
    const text = readFileSync(test, 'utf8');
    expect(text).toContain(`from './recipes/${id}'`);
    expect(text).toMatch(/^describeRecipe\(\w+\);$/m);
  }
});
