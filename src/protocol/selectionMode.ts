// How a selection grows as the pointer moves: by character, by word (double click) or by line
// (triple click). One list for the emulator's selection, the host socket and every view.
export const SELECTION_MODES = ['char', 'word', 'line'] as const;
export type SelectionMode = (typeof SELECTION_MODES)[number];
