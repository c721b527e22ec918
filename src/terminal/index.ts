// Public API of the terminal layer (src/terminal): sessions, render model, input encoding, themes.
export { Session, SYNC_OUTPUT_TIMEOUT_MS, KILL_GRACE_MS, type SpawnOptions, type LaunchError, type ExitStatus, type AdoptOptions } from './session';
export { HolderSource, startHolder, type HolderStart } from './holderSource';
export type { PtySource } from './ptySource';
export { MAX_PENDING_INPUT_BYTES } from './ptyInput';
export {
  RenderModel,
  type Frame,
  type RenderRow,
  type Run,
  type Color,
  type UnderlineStyle,
  type CursorState,
  type BufferPoint,
  type SelectionMode,
  type RowSelection,
  type SelectOp,
} from './renderModel';
export {
  encodeKey,
  encodeMouse,
  encodePaste,
  encodeFocus,
  modifierParam,
  defaultInputModes,
  DEFAULT_SHIFT_ENTER,
  type KeyInput,
  type MouseInput,
  type MouseButton,
  type InputModes,
  type MouseTrackingMode,
  type KeyEncodingOptions,
} from './inputEncoding';
export { TerminalModes, KittyFlags, type CursorShape, type MouseEncoding } from './terminalModes';
export { FlowController, FlowControlConstants } from './flowControl';
export { InBandSignals, type Notification, type Progress } from './inBandSignals';
export { createEmulator } from './createEmulator';
export { wcwidth, unicodeWidthProvider, UNICODE_VERSION } from './unicodeWidth';
export { Utf8Splitter } from './utf8Splitter';
export { findLinks, type TextLink } from './links';
export { findAll, nextMatchIndex, rangeRows, type BufferRange, type FindOptions, type FindDirection } from './bufferSearch';
export { darkTheme, lightTheme, cssHex, paletteColor, resolveColor, dimColor, type Theme } from './theme';
