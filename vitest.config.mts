import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every test process gets a private TMPDIR; after the run, whatever still runs with its
    // environment pointing there fails the suite (test/suiteTeardown.ts).
    globalSetup: ['test/suiteTeardown.ts'],
    // Under CI a failed test runs up to twice more before it counts: the real agent CLIs' turns,
    // a real sshd and the real app under Xvfb share 2 cores, and a test whose generous bound a
    // loaded machine overran once still fails if it fails every time. The retries are printed
    // in the summary, so a flaky test shows as flaky rather than passing silently.
    retry: process.env.CI ? 2 : 0,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Unit and agent files share two workers; the real app's files run after them, alone.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          testTimeout: 20_000,
        },
      },
      {
        test: {
          // Real agent CLIs from npm, each release in its own HOME against the loopback model
          // server (test/integration/agents/matrixRunner.ts), one file per agent, beside the unit
          // files on the same two workers: an agent mostly waits on its model server.
          name: 'agents',
          include: ['test/integration/**/*.test.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
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
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
