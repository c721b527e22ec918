// The terminal's pure half (src/terminal/common): what a frame is made of, input encoding, modes,
// width, search, links and themes. No Node and no pty, so clients import it at run time.
export type { Frame, RenderRow, Run, Color, UnderlineStyle, CursorState, BufferPoint, SelectionMode, RowSelection, SelectOp } from './renderTypes';
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
export { wcwidth, unicodeWidthProvider, UNICODE_VERSION } from './unicodeWidth';
export { Utf8Splitter } from './utf8Splitter';
export { findLinks, type TextLink } from './links';
export { findAll, nextMatchIndex, rangeRows, type BufferRange, type FindOptions, type FindDirection } from './bufferSearch';
export { darkTheme, lightTheme, cssHex, paletteColor, resolveColor, dimColor, type Theme } from './theme';
