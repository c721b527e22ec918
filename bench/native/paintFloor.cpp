// The floor under bench/terminal.mjs's full-frame paint figure: Qt itself, in C++, painting the
// same 200x50 mixed-style frame (20 nine-letter words per row, alternating bold, seven colours,
// every third word on blue) into an offscreen RGB32 image, two ways:
//   drawText  one QPainter::drawText per style run (the text API NodeGUI exposes)
//   glyphRuns glyph indexes looked up once per run, all glyphs of one font and colour drawn with
//             one drawGlyphRun, positioned on the cell grid: no shaping, no layout
// Usage: paintFloor [pointSize]. Prints JSON: {"drawText": {p50, best}, "glyphRuns": {p50, best}} in ms, over 60 frames each.
// Built and run by bench/terminal.mjs when g++ and Qt's development files are there.
#include <QElapsedTimer>
#include <QFont>
#include <QFontMetricsF>
#include <QGlyphRun>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QRawFont>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kRows = 49, kWords = 20, kWordLen = 9, kFrames = 60, kStyles = 7;

QString wordAt(int seed, int r, int c) {
  QString w;
  for (int k = 0; k < kWordLen; k++) w += QChar('a' + ((seed * 131 + r * 17 + c * 7) * (k + 3) + k * k) % 26);
  return w;
}

struct Figures {
  double p50, best;
};

Figures summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

}  // namespace

int main(int argc, char** argv) {
  QGuiApplication app(argc, argv);
  // The point size the view paints at (the bench passes the settings' default).
  const int size = argc > 1 ? std::atoi(argv[1]) : 13;
  const QFont regular("DejaVu Sans Mono", size), bold("DejaVu Sans Mono", size, QFont::Bold);
  const QFontMetricsF fm(regular);
  const double cellW = fm.horizontalAdvance('M'), ascent = fm.ascent();
  const int cellH = QFontMetrics(regular).lineSpacing();
  QImage image(int(200 * cellW) + 1, 50 * cellH, QImage::Format_RGB32);
  const QRawFont rawRegular = QRawFont::fromFont(regular), rawBold = QRawFont::fromFont(bold);
  std::vector<QColor> colours;
  for (int i = 0; i < kStyles; i++) colours.push_back(QColor::fromHsv(i * 50, 200, 230));
  const QColor background(30, 30, 36), blue(40, 70, 170);

  auto paint = [&](int seed, bool glyphRuns) {
    QPainter p(&image);
    QElapsedTimer timer;
    timer.start();
    p.fillRect(image.rect(), background);
    std::vector<QVector<quint32>> glyphs(2 * kStyles);
    std::vector<QVector<QPointF>> positions(2 * kStyles);
    for (int r = 0; r < kRows; r++) {
      for (int c = 0; c < kWords; c++) {
        const QString word = wordAt(seed, r, c);
        const double x = c * (kWordLen + 1) * cellW, y = r * cellH;
        if (c % 3 == 0) p.fillRect(QRectF(x, y, kWordLen * cellW, cellH), blue);
        const bool isBold = c % 2;
        const int style = (r + c + seed) % kStyles;
        if (!glyphRuns) {
          p.setFont(isBold ? bold : regular);
          p.setPen(colours[style]);
          p.drawText(QPointF(x, y + ascent), word);
          continue;
        }
        const int group = (isBold ? kStyles : 0) + style;
        const QVector<quint32> ids = (isBold ? rawBold : rawRegular).glyphIndexesForString(word);
        for (int k = 0; k < ids.size(); k++) {
          glyphs[group].push_back(ids[k]);
          positions[group].push_back(QPointF(x + k * cellW, y + ascent));
        }
      }
    }
    for (int g = 0; glyphRuns && g < 2 * kStyles; g++) {
      if (glyphs[g].isEmpty()) continue;
      QGlyphRun run;
      run.setRawFont(g >= kStyles ? rawBold : rawRegular);
      run.setGlyphIndexes(glyphs[g]);
      run.setPositions(positions[g]);
      p.setPen(colours[g % kStyles]);
      p.drawGlyphRun(QPointF(0, 0), run);
    }
    return timer.nsecsElapsed() / 1e6;
  };

  std::vector<double> text, runs;
  // Interleaved, so both see the same machine load.
  for (int i = 0; i < kFrames; i++) {
    text.push_back(paint(i, false));
    runs.push_back(paint(i, true));
  }
  const Figures t = summarize(text), g = summarize(runs);
  std::printf("{\"drawText\":{\"p50\":%.2f,\"best\":%.2f},\"glyphRuns\":{\"p50\":%.2f,\"best\":%.2f}}\n", t.p50, t.best, g.p50, g.best);
  return 0;
}
