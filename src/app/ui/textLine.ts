// One line of text, painted by hand, for places that update text often among many widgets. A
// QLabel asks its parent layout to recompute on every new text (its size hint changes), and in
// the sidebar that relayout repainted every visible row: with 50 sessions, a 70-100 ms stall each
// second as the times in state ticked (one visible label changing was enough). This line has a
// fixed height and takes whatever width its layout gives it, eliding at the end, so a new text
// only repaints its own rectangle.
import { QColor, QFont, QFontMetrics, QFontWeight, QPainter, QSizePolicyPolicy, QWidget, TextElideMode, WidgetEventTypes } from '@nodegui/nodegui';

export class TextLine {
  readonly widget = new QWidget();
  private text = '';
  private color = new QColor(0, 0, 0);
  private colorName = '';
  private bold = false;
  private font: QFont;
  private metrics: QFontMetrics;

  /** pixelSize: the font size in pixels (default: the application font's). */
  constructor(objectName: string, pixelSize?: number) {
    this.widget.setObjectName(objectName);
    this.font = new QFont(this.widget.font());
    if (pixelSize) this.font.setPixelSize(pixelSize);
    this.metrics = new QFontMetrics(this.font);
    this.widget.setFixedHeight(this.metrics.height());
    this.widget.setSizePolicy(QSizePolicyPolicy.Ignored, QSizePolicyPolicy.Fixed);
    this.widget.addEventListener(WidgetEventTypes.Paint, () => this.paint());
  }

  get value(): string {
    return this.text;
  }

  setText(text: string): void {
    if (text === this.text) return;
    this.text = text;
    this.widget.update();
  }

  /** Colour as "#rrggbb"; bold switches the weight (the height stays). */
  setStyle(color: string, bold = false): void {
    if (color === this.colorName && bold === this.bold) return;
    if (color !== this.colorName) this.color = new QColor(color);
    this.colorName = color;
    if (bold !== this.bold) {
      this.bold = bold;
      this.font.setWeight(bold ? QFontWeight.Bold : QFontWeight.Normal);
      this.metrics = new QFontMetrics(this.font);
    }
    this.widget.update();
  }

  private paint(): void {
    const p = new QPainter(this.widget);
    try {
      p.setFont(this.font);
      p.setPen(this.color);
      p.drawText(0, this.metrics.ascent(), this.metrics.elidedText(this.text, TextElideMode.ElideRight, this.widget.width()));
    } finally {
      p.end();
    }
  }
}
