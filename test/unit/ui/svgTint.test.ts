import { describe, expect, it } from 'vitest';
import { tintSvg } from '../../../src/app/ui/svgTint';

describe('agent icon tint', () => {
  it('recolours fills and strokes, leaving "none" alone', () => {
    const svg = '<svg><rect fill="#ff0000" stroke="none"/><path stroke="#00ff00" style="fill: #123456; stroke-width: 2"/></svg>';
    expect(tintSvg(svg, '#abcdef')).toBe('<svg><rect fill="#abcdef" stroke="none"/><path stroke="#abcdef" style="fill:#abcdef; stroke-width: 2"/></svg>');
  });
});
