// The JSON text checks: the first syntax error agrees with JSON.parse on whether text is JSON,
// and names the offset and reason in words that do not depend on the Node version; the depth
// scan finds where nesting crosses its limit without parsing.
import { describe, expect, it } from 'vitest';
import { describeJsonSyntaxError, findJsonSyntaxError, jsonDepthExceeds, lineColumn } from '../../src/protocol/jsonSyntax';

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('findJsonSyntaxError', () => {
  it('accepts what JSON.parse accepts and refuses what it refuses', () => {
    const samples = [
      '{}',
      '[]',
      ' {"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"]} ',
      '"s"',
      '0',
      '-0.1E+2',
      '{"a":{"b":[[]]}}',
      '',
      '{',
      '{"a":1,}',
      '[1,]',
      '{"a" 1}',
      '{a: 1}',
      '01',
      '1.',
      '.5',
      '+1',
      '"\\x"',
      '"\\u12G4"',
      '"a\tb"',
      '[1 2]',
      'tru',
      'nul',
      '{} {}',
      '{"a":1}}',
      '"unterminated',
      '[',
      '{"a":',
      '-',
      '1e',
      '// c\n{}',
      '\uFEFF{}',
    ];
    for (const text of samples) expect(findJsonSyntaxError(text) === undefined, JSON.stringify(text)).toBe(isJson(text));
  });

  it('names the offset and the reason of the first error', () => {
    expect(findJsonSyntaxError('{"a": [1, 2,]}')).toEqual({ offset: 12, message: 'trailing comma before "]"' });
    expect(findJsonSyntaxError('{"a" 1}')).toEqual({ offset: 5, message: 'expected ":" after the property name, found "1"' });
    expect(findJsonSyntaxError('[1 2]')).toEqual({ offset: 3, message: 'expected "," or "]", found "2"' });
    expect(findJsonSyntaxError('"\\u12G4"')).toEqual({ offset: 1, message: 'bad \\u escape: expected 4 hex digits' });
    expect(findJsonSyntaxError('"a\\\nb"')).toEqual({ offset: 2, message: 'bad escape "\\\\n"' });
    expect(findJsonSyntaxError('{"a":')).toEqual({ offset: 5, message: 'unexpected end of the file' });
  });
});

describe('describeJsonSyntaxError', () => {
  it('gives the line and column of the error, and nothing for valid JSON', () => {
    expect(describeJsonSyntaxError('{\n  "a": 1,\n}')).toBe('trailing comma before "}" (line 3, column 1)');
    expect(describeJsonSyntaxError('{"a": 1}')).toBeUndefined();
  });
});

describe('lineColumn', () => {
  it('counts lines and columns from 1, and stops at the end of the text', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('ab', 10)).toEqual({ line: 1, column: 3 });
  });
});

describe('jsonDepthExceeds', () => {
  it('finds the bracket that crosses the limit, ignoring brackets inside strings', () => {
    expect(jsonDepthExceeds('[[[1]]]', 3)).toBeUndefined();
    expect(jsonDepthExceeds('[[[[1]]]]', 3)).toEqual({ line: 1, column: 4 });
    expect(jsonDepthExceeds('{"a": "[[[[[\\"[[["}', 3)).toBeUndefined();
    expect(jsonDepthExceeds('[\n [\n  {"a":\n   [1]}]]', 3)).toEqual({ line: 4, column: 4 });
  });
});
