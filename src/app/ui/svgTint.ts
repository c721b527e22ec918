// Recolouring of SVG marks for an icon's tint: every fill and stroke colour (but "none") becomes
// the tint, as a template image is drawn. Text only, so it is tested without Qt.
export function tintSvg(svg: string, tint: string): string {
  return svg.replace(/\b(fill|stroke)="(?!none")[^"]*"/g, `$1="${tint}"`).replace(/\b(fill|stroke):\s*(?!none)[^;"]+/g, `$1:${tint}`);
}
