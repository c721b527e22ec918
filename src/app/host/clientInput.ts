// What an input intent from a client's view does to its session: keys, text, paste and mouse
// take the input for that view first; resize, focus, scroll and select act as the view asks.
import type { InputIntent } from '../../protocol/hostMessages';
import type { FeedView, SessionFeed } from './sessionFeed';

export function applyInput(feed: SessionFeed, view: FeedView, input: InputIntent): void {
  const s = feed.record.session;
  switch (input.kind) {
    case 'key': {
      feed.take(view);
      const { kind: _k, ...key } = input;
      s.sendKey(key);
      return;
    }
    case 'text':
      feed.take(view);
      s.write(input.text);
      return;
    case 'paste':
      feed.take(view);
      s.paste(input.text);
      return;
    case 'mouse': {
      feed.take(view);
      const { kind: _k, action, ...rest } = input;
      s.sendMouse({ kind: action, ...rest });
      return;
    }
    case 'resize':
      feed.resize(view, input.cols, input.rows);
      return;
    case 'focus':
      // Only the view that holds the input speaks for the window's focus.
      if (feed.isHolder(view)) s.sendFocus(input.focused);
      return;
    case 'scroll':
      if (input.to === 'bottom') s.scrollToBottom();
      else if (input.to === 'top') s.scrollLines(-s.viewport.length);
      else if (input.lines) s.scrollLines(input.lines);
      return;
    case 'select': {
      const { kind: _k, ...op } = input;
      s.renderModel.select(op);
      s.requestRender();
      return;
    }
  }
}
