import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every test process gets a private TMPDIR; after the run, whatever still runs with its
    // environment pointing there fails the suite (test/suiteTeardown.ts).
    globalSetup: ['test/suiteTeardown.ts'],
    // No retries: each test runs once and counts. A test that fails under load is fixed at its
    // cause (a condition it waits for, a bound it can keep on two busy cores), never run again.
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Two workers; the agent CLIs and the real app run after the unit files.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          // A bound that only stops a hung test: CPU-bound property and flood tests take a few
          // seconds alone and several times that on two cores with the suite (or busy loops) beside.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          // Real agent CLIs from npm, each release in its own HOME against the loopback model
          // server (test/integration/agents/matrixRunner.ts), one file per agent, after the unit
          // files and one at a time: a TUI starved of the CPU draws its permission menu late, and
          // an agent alone takes a minute or two.
          name: 'agents',
          include: ['test/integration/**/*.test.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // The e2e suite drives one real Qt app per test under Xvfb; run files one at a time,
          // after the unit and agent files, so two apps never fight over the 2 cores and the X server.
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
