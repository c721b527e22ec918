// What an input intent from a client's view does to its session: keys, text, paste and mouse
// take the input for that view first; resize, focus, scroll and select act as the view asks.
import type { InputIntent } from '../../../protocol/hostMessages';
import type { FeedView, SessionFeed } from '../sessions/sessionFeed';
import { traceLatency } from '../../services/latencyTrace';

/** False when the session refused typed text (its program has not read what it was sent). */
export function applyInput(feed: SessionFeed, view: FeedView, input: InputIntent): boolean {
  const s = feed.record.session;
  switch (input.kind) {
    case 'key': {
      const { kind: _k, ...key } = input;
      // From the view that holds the input (the session has its size) the key goes out first and
      // the bookkeeping follows: the echo cannot be read before this returns. From another view,
      // the session takes that view's size before the key.
      const holds = feed.isHolder(view);
      if (!holds) feed.take(view);
      s.sendKey(key);
      traceLatency('keyOut');
      if (holds) feed.take(view);
      feed.typed();
      return true;
    }
    case 'text':
      feed.take(view);
      feed.typed();
      return s.write(input.text);
    case 'paste':
      feed.take(view);
      feed.typed();
      return s.paste(input.text);
    case 'mouse': {
      feed.take(view);
      const { kind: _k, action, ...rest } = input;
      s.sendMouse({ kind: action, ...rest });
      return true;
    }
    case 'resize':
      feed.resize(view, input.cols, input.rows);
      return true;
    case 'focus':
      // Only the view that holds the input speaks for the window's focus.
      if (feed.isHolder(view)) s.sendFocus(input.focused);
      return true;
    case 'scroll':
      if (input.to === 'bottom') s.scrollToBottom();
      else if (input.to === 'top') s.scrollLines(-s.viewport.length);
      else if (input.lines) s.scrollLines(input.lines);
      return true;
    case 'select': {
      const { kind: _k, ...op } = input;
      s.renderModel.select(op);
      s.requestRender();
      return true;
    }
  }
}
