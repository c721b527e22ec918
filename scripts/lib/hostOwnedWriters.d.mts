export declare const HOST_OWNED_WRITERS: string[];
export declare const WRITER_DOOR: string;
