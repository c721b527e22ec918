/** Every spawn-helper under a node-pty folder: the prebuilt ones and a locally compiled one. */
export declare function spawnHelpers(nodePtyDir: string): string[];
/** Adds the execute bits where they are missing; returns the files it changed. */
export declare function ensureSpawnHelperExecutable(nodePtyDir: string): string[];
