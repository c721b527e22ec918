// The binary screen frame of the host protocol: a header (size, cursor, modes, title, state,
// exit) and changed viewport rows as same-style runs. Rows are encoded once by the host and
// shared by every client; a painter walks them with FrameReader, which validates the whole frame
// in one pass first and then hands out runs through one reused object (no object per cell).
// Pure (no Node modules). All integers big-endian.
// The format, the writer and the reader live in their own modules; this one is what callers import.
export * from './hostFrameFormat';
export * from './hostFrameWriter';
export * from './hostFrameReader';
