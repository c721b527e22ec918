export declare const MIN_MACOS: string;
export declare const BUNDLE_ID: string;
export declare const MAIN_EXECUTABLE: string;
export declare const APP_DIR: string;
export declare const APP_MAIN: string;
export declare const HOOK_REPORTER: string;
/** Parses an XML property list into plain values; throws with the line of what it cannot read. */
export declare function parsePlist(text: string): unknown;
/** Compares dotted versions numerically: -1, 0 or 1. */
export declare function compareVersions(a: string, b: string): -1 | 0 | 1;
/** Every way the bundle at app differs from what macOS and Termio need; empty when it is right. */
export declare function checkMacBundle(app: string, expectedVersion?: string): string[];
/** An .icns holding one 256 px PNG. */
export declare function icnsFromPng(png: Buffer): Buffer;
