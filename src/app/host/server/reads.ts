// What a client reads from a session besides frames: a page of rows (scrollback included) as a
// binary rows message, and the text of a selection, the client's own range or the session's.
import { encodeRow, encodeRowsMessage } from '../../../protocol/hostFrame';
import type { HostParams } from '../../../protocol/hostMessages';
import type { RenderModel, Session } from '../../../terminal/node';

export function rowsPage(s: Session, id: number, p: HostParams<'rows'>): Uint8Array {
  const total = s.viewport.length;
  const first = Math.min(p.first, total);
  const end = Math.min(total, first + p.count);
  const rows: Uint8Array[] = [];
  for (let y = first; y < end; y++) rows.push(encodeRow(y - first, s.renderModel.bufferRow(y) ?? { runs: [], wrapped: false }));
  return encodeRowsMessage({ id, first, total, cols: s.cols }, rows);
}

export function selectionOf(model: RenderModel, p: HostParams<'selectionText'>, maxChars: number): { text: string; truncated: boolean } {
  let text: string;
  if (p.start && p.end) {
    // A range of the client's own: the session's selection is kept aside while the model
    // computes the text, and put back before anything can paint.
    const own = model.selectionState();
    model.setSelection(p.start, p.end, p.mode ?? 'char');
    text = model.selectionText();
    model.restoreSelection(own);
  } else {
    text = model.selectionText();
  }
  const truncated = text.length > maxChars;
  return { text: truncated ? text.slice(0, maxChars) : text, truncated };
}
