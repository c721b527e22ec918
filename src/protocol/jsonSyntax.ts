// Checks on JSON text before (or instead of) JSON.parse: where and why text is not JSON, in our
// own words (V8's messages differ between Node versions and sometimes quote the text across
// lines), and whether it nests deeper than a limit, found without building anything.

export interface TextPosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 units. */
  column: number;
}

/** The line and column of an offset into text. */
export function lineColumn(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** The first syntax error in JSON text, e.g. `trailing comma before "}" (line 4, column 1)`;
 *  undefined when the text is valid JSON. */
export function describeJsonSyntaxError(text: string): string | undefined {
  const found = findJsonSyntaxError(text);
  if (!found) return undefined;
  const { line, column } = lineColumn(text, found.offset);
  return `${found.message} (line ${line}, column ${column})`;
}

/** The offset and reason of the first syntax error in JSON text, or undefined when it is valid. */
export function findJsonSyntaxError(text: string): { offset: number; message: string } | undefined {
  const scanner = new JsonScanner(text);
  try {
    scanner.document();
    return undefined;
  } catch (thrown) {
    if (thrown instanceof JsonSyntaxError) return { offset: thrown.offset, message: thrown.message };
    throw thrown;
  }
}

/** Thrown inside the scanner to unwind from any depth to the first error; never escapes it. */
class JsonSyntaxError {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** Characters allowed after a backslash in a JSON string, besides "u". */
const SIMPLE_ESCAPES = '"\\/bfnrt';
/** Longest literal (number, true, false, null) matched at once: far beyond any real number. */
const MAX_LITERAL_CHARS = 400;
const LITERAL = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/;

/** A recursive-descent reader of JSON (RFC 8259) that only checks, at offset `i`. */
class JsonScanner {
  private i = 0;

  constructor(private readonly text: string) {}

  /** One value and nothing after it but whitespace. */
  document(): void {
    this.value();
    this.ws();
    if (this.i < this.text.length) this.fail(`unexpected ${this.describeAt()} after the end of the JSON value`);
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(this.i, message);
  }

  private ws(): void {
    const text = this.text;
    while (this.i < text.length && (text[this.i] === ' ' || text[this.i] === '\t' || text[this.i] === '\n' || text[this.i] === '\r')) this.i++;
  }

  private describeAt(): string {
    return this.i >= this.text.length ? 'the end of the file' : JSON.stringify(this.text[this.i]);
  }

  private expectChar(c: string, what: string): void {
    if (this.text[this.i] !== c) this.fail(`expected ${what}, found ${this.describeAt()}`);
    this.i++;
  }

  private value(): void {
    this.ws();
    const c = this.text[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    const literal = LITERAL.exec(this.text.slice(this.i, this.i + MAX_LITERAL_CHARS));
    if (!literal) this.fail(this.i >= this.text.length ? 'unexpected end of the file' : `unexpected ${this.describeAt()}`);
    this.i += literal[0].length;
  }

  private object(): void {
    this.i++;
    this.ws();
    if (this.text[this.i] === '}') return void this.i++;
    for (;;) {
      this.ws();
      if (this.text[this.i] !== '"') this.fail(`expected a double-quoted property name, found ${this.describeAt()}`);
      this.string();
      this.ws();
      this.expectChar(':', '":" after the property name');
      this.value();
      if (!this.comma('}')) return this.expectChar('}', '"," or "}"');
    }
  }

  private array(): void {
    this.i++;
    this.ws();
    if (this.text[this.i] === ']') return void this.i++;
    for (;;) {
      this.value();
      if (!this.comma(']')) return this.expectChar(']', '"," or "]"');
    }
  }

  /** After a member: consumes a "," (refusing one right before `close`) and says whether there was one. */
  private comma(close: '}' | ']'): boolean {
    this.ws();
    if (this.text[this.i] !== ',') return false;
    this.i++;
    this.ws();
    if (this.text[this.i] === close) this.fail(`trailing comma before "${close}"`);
    return true;
  }

  private string(): void {
    this.expectChar('"', 'a double-quoted string');
    for (;;) {
      if (this.i >= this.text.length) this.fail('unterminated string');
      const c = this.text.charCodeAt(this.i);
      if (c === 34 /* " */) break;
      if (c < 0x20) this.fail('control character inside a string (use \\n, \\t, ...)');
      if (c === 92 /* \ */) this.escape();
      this.i++;
    }
    this.i++;
  }

  /** The escape at a backslash; leaves `i` on its last character. */
  private escape(): void {
    const e = this.text[this.i + 1];
    if (e === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 2, this.i + 6))) this.fail('bad \\u escape: expected 4 hex digits');
      this.i += 4;
    } else if (e === undefined || !SIMPLE_ESCAPES.includes(e)) {
      // A control character (a newline) is shown escaped, keeping the message on one line.
      this.fail(`bad escape "\\${e === undefined ? '' : /^[\x20-\x7e]$/.test(e) ? e : JSON.stringify(e).slice(1, -1)}"`);
    }
    this.i++;
  }
}

/**
 * Scans JSON text for nesting deeper than max without building anything, so a hostile file is
 * refused with one message before JSON.parse or a schema walks it. Returns where it crossed.
 */
export function jsonDepthExceeds(text: string, max: number): TextPosition | undefined {
  // Fewer than max opening brackets in all cannot nest deeper than max: skip the scan (the usual case).
  let openers = 0;
  for (const c of ['{', '[']) for (let i = text.indexOf(c); i >= 0 && openers <= max; i = text.indexOf(c, i + 1)) openers++;
  if (openers <= max) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return lineColumn(text, i);
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return undefined;
}
