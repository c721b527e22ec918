// Byte-exact insert and remove of one member of a JSON(C) object or array, on jsonc-parser's
// syntax tree. jsonc-parser's own modify() re-formats the surrounding lines when it inserts and
// guesses whitespace when it removes, which changes bytes the user wrote; here an insertion is
// `,<newline><indent><value>` right after the last member and removal deletes exactly the span
// from the previous member's end, so uninstall undoes install to the byte.
import type { Node } from 'jsonc-parser';

export interface TextStyle {
  /** One indent level: "  ", "    " or "\t". */
  unit: string;
  eol: string;
}

/** The file's own indent unit and line ending, so what we add looks like what is there. */
export function detectStyle(text: string): TextStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /^([ \t]+)["{[]/m.exec(text);
  const unit = m ? ((m[1] as string).startsWith('\t') ? '\t' : (m[1] as string)) : '  ';
  return { unit, eol };
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

/** A value laid out over several lines, every line after the first indented by `indent`. */
function render(value: unknown, indent: string, style: TextStyle): string {
  return JSON.stringify(value, null, style.unit)
    .split('\n')
    .join(style.eol + indent);
}

function member(key: string | undefined, value: unknown, indent: string, style: TextStyle, multiline: boolean): string {
  const v = multiline ? render(value, indent, style) : JSON.stringify(value);
  return key === undefined ? v : `${JSON.stringify(key)}: ${v}`;
}

export type Edit = { offset: number; length: number; content: string };

export function applyEdit(text: string, e: Edit): string {
  return text.slice(0, e.offset) + e.content + text.slice(e.offset + e.length);
}

/**
 * Appends a member to an object (key given) or an array (key undefined), matching the
 * container's layout: one member per line when it is laid out that way, inline otherwise.
 */
export function appendMember(text: string, container: Node, key: string | undefined, value: unknown, style: TextStyle): Edit {
  const children = container.children ?? [];
  const last = children[children.length - 1];
  if (last) {
    const first = children[0] as Node;
    const multiline = text.slice(container.offset, first.offset).includes('\n');
    const lastIndent = lineIndent(text, last.offset);
    const onOwnLine = text.slice(text.lastIndexOf('\n', last.offset - 1) + 1, last.offset).trim() === '';
    const indent = onOwnLine ? lastIndent : lineIndent(text, container.offset) + style.unit;
    const content = multiline ? `,${style.eol}${indent}${member(key, value, indent, style, true)}` : `, ${member(key, value, indent, style, false)}`;
    return { offset: last.offset + last.length, length: 0, content };
  }
  // An empty container: open it onto its own lines.
  const outer = lineIndent(text, container.offset);
  const indent = outer + style.unit;
  const inner = text.slice(container.offset + 1, container.offset + container.length - 1);
  const closing = inner.includes('\n') ? '' : `${style.eol}${outer}`;
  return { offset: container.offset + 1, length: 0, content: `${style.eol}${indent}${member(key, value, indent, style, true)}${closing}` };
}

/** Removes member `index` (a property node of an object, or an element of an array). */
export function removeMember(text: string, container: Node, index: number): Edit {
  const children = container.children ?? [];
  const node = children[index];
  if (!node) throw new Error(`removeMember: no member ${index} in a container of ${children.length}`);
  const end = node.offset + node.length;
  const prev = children[index - 1];
  if (prev) {
    const from = prev.offset + prev.length;
    return { offset: from, length: end - from, content: '' };
  }
  const next = children[index + 1];
  if (next) return { offset: node.offset, length: next.offset - node.offset, content: '' };
  // The only member: take the container back to `{}` / `[]`, keeping comments inside it.
  const open = container.offset + 1;
  const close = container.offset + container.length - 1;
  const before = text.slice(open, node.offset);
  // A trailing comma after the last member (JSONC allows it) goes with the member.
  const after = text.slice(end, close).replace(/^(\s*),/, '$1');
  const keep = (s: string) => (s.trim() === '' ? '' : s);
  return { offset: open, length: close - open, content: keep(before) + keep(after) };
}
