/** Where the generated validator lives, relative to the repository root. */
export declare const GENERATED_FILE: string;
/** The text of the generated validator module for this zod schema. */
export declare function manifestValidatorSource(manifestSchema: unknown): string;
