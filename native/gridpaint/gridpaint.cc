// gridpaint: paints a terminal frame, encoded as drawing operations, onto a QWidget or an image.
// Qt lays out each character once (shaping, font fallback); frames draw the cached glyphs in bands
// of rows, blended by glyphBlit.h (or Qt, one QGlyphRun per font and colour, where the blitter
// cannot match Qt), so a cell costs the same in any script. Emoji are cached pictures.
#include <node_api.h>

#include "glyphBlit.h"

#include <QBackingStore>
#include <QColor>
#include <QFont>
#include <QGlyphRun>
#include <QGuiApplication>
#include <QHash>
#include <QImage>
#include <QKeyEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPen>
#include <QPixmap>
#include <QRawFont>
#include <QTextLayout>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

namespace {

// Operation codes and their int32 operands; the TypeScript encoder (gridOps.ts) writes the same.
enum Op : int32_t {
  kFill = 1,     // x y w h rgb                      (logical pixels)
  kText = 2,     // col row cellWidth font rgb start len: one UTF-16 unit per character
  kCluster = 3,  // col row cells font rgb start len: one character of any length
  kLine = 4,     // x1 y1 x2 y2 width rgb
  kArc = 5,      // x y w h startAngle16 spanAngle16 width rgb
  kFlush = 6,    // draws the text queued so far (what follows paints over it)
  kString = 7,   // col row font rgb start len: free text laid out by Qt (IME pre-edit)
};
constexpr int kOperands[] = {0, 5, 7, 7, 6, 8, 0, 6};
constexpr int kSlots = 4;  // regular, bold, italic, bold italic
constexpr int kAsciiEnd = 128;
// Distinct characters kept before the cache starts over: a screen holds at most a few thousand,
// and an entry is a few dozen bytes (a colour glyph a few KB).
constexpr size_t kMaxEntries = 20000;
// Glyph masks (one per glyph and sub-pixel position, a few hundred bytes each) kept before the
// blitter's cache starts over: a screen in one font needs a few thousand.
constexpr size_t kMaxMasks = 20000;
// Rows of cells drawn as one band: three rows of a 2000-pixel-wide window are about half a MB,
// which stays in a core's L2 cache while glyphs are blended over the band's fills. Fewer, taller
// bands also mean fewer glyphs cut by a band's edge (drawn once per band they touch).
constexpr int kBandRows = 3;

struct Glyph {
  int font;  // index into Painter::rawFonts
  quint32 index;
  QPointF offset;  // from the cell's left edge on the baseline
};

struct Entry {
  std::vector<Glyph> glyphs;
  bool colour = false;
  double advance = 0;
  double lineAscent = 0;
  double lineHeight = 0;
  QPixmap pixmap;    // colour glyphs: rasterised once, fitted to the cells
  QImage image;      // the pixmap's own pixels, for the blitter
  QPointF pixmapAt;  // its offset from the cell's top-left corner
  int pixmapCells = 0;
};

struct QStringHash {
  size_t operator()(const QString& s) const { return qHash(s); }
};

struct Batch {
  QList<quint32> indexes;
  QList<QPointF> positions;
  int font = 0;
  QRgb rgb = 0;
};

class Painter {
 public:
  Painter(const QString& family, double pointSize, double cellW, int cellH, int ascent)
      : cellW_(cellW), cellH_(cellH), ascent_(ascent), blit_(cellW, cellH) {
    for (int s = 0; s < kSlots; s++) {
      fonts_[s] = QFont(family);
      fonts_[s].setPointSizeF(pointSize);
      fonts_[s].setBold(s & 1);
      fonts_[s].setItalic(s & 2);
    }
  }

  void paint(QPainter& p, double dpr, const int32_t* ops, size_t count, const QString& text) {
    if (dpr != dpr_ || entries_ > kMaxEntries) reset(dpr);
    if (blit_.size() > kMaxMasks) blit_.clear();
    if (probe_.isValid() == false) probe_ = QRawFont::fromFont(fonts_[0]);
    direct_ = directText_ && blit_.begin(p, probe_);
    size_t i = 0;
    while (i < count) {
      const int32_t op = ops[i];
      if (op < kFill || op > kString || i + 1 + kOperands[op] > count) return;  // checked by the caller
      const int32_t* a = ops + i + 1;
      if (op == kText || op == kCluster) {
        queueText(op, a, text);
      } else if (direct_) {
        // Fills, lines and the pre-edit wait for the glyphs they go under: drawn band by band.
        if (op == kFlush || op == kString) drawBands(p, ops, text);
        if (op != kFlush) pending_.push_back(a - ops);
      } else {
        if (op == kFlush || op == kString) flush(p);
        if (op != kFlush) draw(p, op, a, text);
      }
      i += 1 + kOperands[op];
    }
    if (direct_) drawBands(p, ops, text);
    else flush(p);
  }

  size_t cachedEntries() const { return entries_; }
  // Glyph masks the blitter keeps (one per glyph, font and sub-pixel step it was drawn at).
  size_t blitMasks() const { return blit_.size(); }

  // Off: every glyph is drawn by QPainter::drawGlyphRun (the reference the blitter must match).
  void setDirectText(bool on) { directText_ = on; }
  // Whether the last paint wrote glyphs straight into the device's image.
  bool directTextUsed() const { return direct_; }

 private:
  static QColor colour(int32_t rgb) { return QColor(qRgb(rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff)); }

  // Text and cluster operations: their glyphs join the batches drawn at the next flush.
  void queueText(int32_t op, const int32_t* a, const QString& text) {
    if (op == kText) {
      for (int32_t k = 0; k < a[6]; k++) {
        const ushort u = text.at(a[5] + k).unicode();
        if (u == ' ') continue;
        const Entry& e = u < kAsciiEnd ? ascii(a[3], u) : single(a[3], u, a[2]);
        queue(e, a[0] + k * a[2], a[1], a[2], a[4]);
      }
      return;
    }
    // One code point (an astral emoji is two UTF-16 units) is looked up without a string.
    const QChar first = text.at(a[5]);
    if (a[6] == 1) {
      queue(single(a[3], first.unicode(), a[2]), a[0], a[1], a[2], a[4]);
    } else if (a[6] == 2 && first.isHighSurrogate() && text.at(a[5] + 1).isLowSurrogate()) {
      queue(single(a[3], QChar::surrogateToUcs4(first, text.at(a[5] + 1)), a[2]), a[0], a[1], a[2], a[4]);
    } else {
      queue(cluster(a[3], text.mid(a[5], a[6]), a[2]), a[0], a[1], a[2], a[4]);
    }
  }

  // Fills, lines, arcs and the pre-edit string, straight through the QPainter.
  void draw(QPainter& p, int32_t op, const int32_t* a, const QString& text) {
    switch (op) {
      case kFill:
        p.fillRect(a[0], a[1], a[2], a[3], colour(a[4]));
        break;
      case kLine: {
        QPen pen(colour(a[5]));
        pen.setWidth(a[4]);
        p.setPen(pen);
        p.drawLine(a[0], a[1], a[2], a[3]);
        break;
      }
      case kArc: {
        QPen pen(colour(a[7]));
        pen.setWidth(a[6]);
        p.setPen(pen);
        p.drawArc(a[0], a[1], a[2], a[3], a[4], a[5]);
        break;
      }
      case kString:
        p.setFont(fonts_[a[2] & 3]);
        p.setPen(colour(a[3]));
        p.drawText(QPointF(a[0] * cellW_, a[1] * cellH_ + ascent_), text.mid(a[4], a[5]));
        break;
    }
  }

  // The logical rows [top, bottom) an operation can touch (whole device for the pre-edit).
  std::pair<double, double> extent(int32_t op, const int32_t* a) const {
    switch (op) {
      case kFill:
        return {a[1], a[1] + a[3]};
      case kLine:
        return {std::min(a[1], a[3]) - a[4] - 1.0, std::max(a[1], a[3]) + a[4] + 1.0};
      case kArc:
        return {a[1] - a[6] - 1.0, a[1] + a[3] + a[6] + 1.0};
      default:
        return {-1e9, 1e9};
    }
  }

  // Draws what was gathered since the last flush one band of rows at a time: the band's fills
  // and lines in their order, then its glyphs in batch order, then its colour glyphs, exactly the
  // order the whole frame would get, so every pixel sees the same operations. A band is small
  // enough to stay in the CPU cache between its fills and the glyphs blended over them; drawing
  // the frame whole made every glyph read back pixels its fill had pushed out of the cache.
  void drawBands(QPainter& p, const int32_t* ops, const QString& text) {
    // Where each glyph goes (blitted: its mask; drawn by Qt: its outline's box) and its rows.
    placed_.clear();
    order_.clear();
    for (uint64_t key : used_) order_.push_back(&batches_[key]);
    size_t viaQt = 0;
    const int offY = blit_.offset().y();
    for (size_t bi = 0; bi < used_.size(); bi++) {
      Batch& b = *order_[bi];
      const QRawFont& font = rawFonts_[b.font];
      for (qsizetype g = 0; g < b.indexes.size(); g++) {
        PlacedGlyph e{{static_cast<int32_t>(bi), static_cast<int32_t>(g), {}, false, true}, 0, 0};
        if (blit_.place(font, b.font, b.indexes[g], b.positions[g], e.glyph.placed)) {
          if (e.glyph.placed.mask->w == 0) continue;
          e.top = e.glyph.placed.y - offY;
          e.bottom = e.top + e.glyph.placed.mask->h;
        } else {
          e.glyph.viaQt = true;  // its rows are looked up below, if there are bands
          viaQt++;
        }
        placed_.push_back(e);
      }
    }
    const int width = p.device()->width();
    const int height = p.device()->height();
    // Mostly glyphs Qt draws (a CJK screen): bands would only cut Qt's runs into more calls and
    // clips, so the frame is one band, drawn in the old order.
    const bool mostlyQt = viaQt * 2 > placed_.size();
    const int rowH = mostlyQt ? std::max(1, height) : static_cast<int>(cellH_) * kBandRows;
    const int bands = std::max(1, (height + rowH - 1) / rowH);
    // Cleared, not reallocated: each band keeps its capacity from frame to frame.
    bandOps_.resize(bands);
    bandGlyphs_.resize(bands);
    bandPictures_.resize(bands);
    for (int k = 0; k < bands; k++) {
      bandOps_[k].clear();
      bandGlyphs_[k].clear();
      bandPictures_[k].clear();
    }
    auto spread = [&](double top, double bottom, auto&& add) {
      const int from = std::max(0, static_cast<int>(std::floor(top / rowH)));
      const int to = std::min(bands - 1, static_cast<int>(std::ceil(bottom / rowH)) - 1);
      for (int k = from; k <= to; k++) add(k);
    };
    for (size_t n = 0; n < pending_.size(); n++) {
      const int32_t* a = ops + pending_[n];
      const auto [top, bottom] = extent(a[-1], a);
      spread(top, bottom, [&](int k) { bandOps_[k].push_back(static_cast<int32_t>(n)); });
    }
    for (PlacedGlyph& e : placed_) {
      if (e.glyph.viaQt && bands > 1) {
        const Batch& b = *order_[e.glyph.batch];
        const QRectF r = outline(b.font, b.indexes[e.glyph.glyph]).translated(b.positions[e.glyph.glyph]);
        e.top = r.top();
        e.bottom = r.bottom();
      } else if (e.glyph.viaQt) {
        e.top = 0;
        e.bottom = height;
      }
      e.glyph.inside = std::floor(e.top / rowH) == std::floor(e.bottom / rowH);
      spread(e.top, e.bottom, [&](int k) { bandGlyphs_[k].push_back(e.glyph); });
    }
    for (size_t n = 0; n < pictures_.size(); n++) {
      const auto& [at, entry] = pictures_[n];
      const double top = at.y() - 1, bottom = at.y() + entry->pixmap.height() / entry->pixmap.devicePixelRatio() + 1;
      spread(top, bottom, [&](int k) { bandPictures_[k].push_back(static_cast<int32_t>(n)); });
    }
    for (int k = 0; k < bands; k++) drawBand(p, ops, text, QRect(0, k * rowH, width, rowH), k);
    for (Batch* b : order_) {
      b->indexes.clear();
      b->positions.clear();
    }
    used_.clear();
    pictures_.clear();
    pending_.clear();
  }

  // A glyph's box from its baseline origin, with two pixels for antialiasing, kept per font and
  // glyph (asking the font each frame cost a microsecond a glyph).
  const QRectF& outline(int font, quint32 glyph) {
    const uint64_t key = (uint64_t(font) << 32) | glyph;
    auto it = outlines_.find(key);
    if (it != outlines_.end()) return it->second;
    return outlines_.emplace(key, rawFonts_[font].boundingRect(glyph).adjusted(-2, -2, 2, 2)).first->second;
  }

  void drawBand(QPainter& p, const int32_t* ops, const QString& text, const QRect& band, int k) {
    for (int32_t n : bandOps_[k]) {
      const int32_t* a = ops + pending_[n];
      const int32_t op = a[-1];
      if (op == kFill) {
        const QRect r = QRect(a[0], a[1], a[2], a[3]) & band;
        if (!r.isEmpty()) p.fillRect(r, colour(a[4]));
        continue;
      }
      p.setClipRect(band);
      draw(p, op, a, text);
      p.setClipping(false);
    }
    const QRect deviceBand = band.translated(blit_.offset());
    // Glyphs Qt draws (as one run per batch, in their place in the order; clipped to the band
    // only when one of them crosses its edge) and blitted ones.
    QList<quint32> indexes;
    QList<QPointF> positions;
    int32_t runBatch = -1;
    bool runInside = true;
    auto drawRun = [&]() {
      if (indexes.isEmpty()) return;
      const Batch& b = *order_[runBatch];
      QGlyphRun run;
      run.setRawFont(rawFonts_[b.font]);
      run.setGlyphIndexes(indexes);
      run.setPositions(positions);
      if (!runInside) p.setClipRect(band);
      p.setPen(QColor(b.rgb));
      p.drawGlyphRun(QPointF(0, 0), run);
      if (!runInside) p.setClipping(false);
      indexes.clear();
      positions.clear();
      runInside = true;
    };
    for (const BandGlyph& e : bandGlyphs_[k]) {
      const Batch& b = *order_[e.batch];
      if (!e.viaQt) {
        drawRun();
        blit_.blend(e.placed, b.rgb & 0xffffff, deviceBand);
        continue;
      }
      if (e.batch != runBatch) drawRun();
      runBatch = e.batch;
      runInside = runInside && e.inside;
      indexes.push_back(b.indexes[e.glyph]);
      positions.push_back(b.positions[e.glyph]);
    }
    drawRun();
    for (int32_t n : bandPictures_[k]) {
      const auto& [at, entry] = pictures_[n];
      blit_.blendPicture(entry->image, at, deviceBand);
    }
  }

  void reset(double dpr) {
    dpr_ = dpr;
    for (auto& slot : ascii_) for (auto& e : slot) e.reset();
    for (auto& m : singles_) m.clear();
    for (auto& m : clusters_) m.clear();
    blit_.clear();
    outlines_.clear();
    entries_ = 0;
  }

  const Entry& ascii(int slot, ushort u) {
    auto& e = ascii_[slot & 3][u];
    if (!e) e = build(slot, QString(QChar(u)), 1);
    return *e;
  }

  // A character's width never changes, so its cell count can pick the font it is built with.
  const Entry& single(int slot, char32_t cp, int cells) {
    auto& m = singles_[slot & 3];
    auto it = m.find(cp);
    if (it != m.end()) return *it->second;
    return *(m[cp] = build(slot, QString::fromUcs4(&cp, 1), 0, cells));
  }

  const Entry& cluster(int slot, const QString& s, int cells) {
    auto& m = clusters_[slot & 3];
    auto it = m.find(s);
    if (it != m.end()) return *it->second;
    return *(m[s] = build(slot, s, 0, cells));
  }

  // Wide symbols and pictographs are emoji in a terminal: their colour font comes before the
  // text fonts that also have a plain glyph for some of them (DejaVu Sans draws U+1F600).
  static bool prefersEmoji(const QString& s, int cells) {
    if (cells != 2 || s.isEmpty()) return false;
    const char32_t cp = s.at(0).isHighSurrogate() && s.size() > 1 ? QChar::surrogateToUcs4(s.at(0), s.at(1)) : s.at(0).unicode();
    return cp >= 0x1F000 || (cp >= 0x2300 && cp < 0x2C00);
  }

  int internFont(const QRawFont& f) {
    for (size_t i = 0; i < rawFonts_.size(); i++) if (rawFonts_[i] == f) return static_cast<int>(i);
    rawFonts_.push_back(f);
    return static_cast<int>(rawFonts_.size() - 1);
  }

  // Lays the character out once with Qt (shaping and font fallback) and keeps its glyphs.
  std::unique_ptr<Entry> build(int slot, const QString& s, int knownAscii, int cells = 1) {
    entries_++;
    auto e = std::make_unique<Entry>();
    QFont font = fonts_[slot & 3];
    if (prefersEmoji(s, cells)) {
      QStringList families{QStringLiteral("Apple Color Emoji"), QStringLiteral("Noto Color Emoji")};
      families << (font.families().isEmpty() ? QStringList{font.family()} : font.families());
      font.setFamilies(families);
    }
    QTextLayout layout(s, font);
    layout.setCacheEnabled(false);
    layout.beginLayout();
    QTextLine line = layout.createLine();
    layout.endLayout();
    if (!line.isValid()) return e;
    const double ascent = line.ascent();
    const QList<QGlyphRun> runs = layout.glyphRuns();
    for (const QGlyphRun& run : runs) {
      const int font = internFont(run.rawFont());
      const QList<quint32> idx = run.glyphIndexes();
      const QList<QPointF> pos = run.positions();
      for (qsizetype g = 0; g < idx.size(); g++) e->glyphs.push_back({font, idx[g], pos[g] - QPointF(0, ascent)});
    }
    e->advance = line.naturalTextWidth();
    if (!knownAscii && !runs.isEmpty()) {
      // A glyph drawn in black on transparent that comes out with colour is an emoji bitmap:
      // keep it as a picture instead of tinting it with the text colour.
      const QSize size(std::max(1, int(std::ceil(e->advance))), std::max(1, int(std::ceil(line.height()))));
      QImage img(size, QImage::Format_ARGB32_Premultiplied);
      img.fill(Qt::transparent);
      {
        QPainter ip(&img);
        ip.setPen(Qt::black);
        for (const QGlyphRun& run : runs) ip.drawGlyphRun(QPointF(0, 0), run);
      }
      bool coloured = false;
      for (int y = 0; y < img.height() && !coloured; y++) {
        const QRgb* px = reinterpret_cast<const QRgb*>(img.constScanLine(y));
        for (int x = 0; x < img.width(); x++) {
          if ((px[x] & 0xffffff) != 0) {
            coloured = true;
            break;
          }
        }
      }
      if (coloured) {
        e->colour = true;
        e->lineAscent = ascent;
        e->lineHeight = line.height();
      }
    }
    return e;
  }

  // Colour glyphs become a picture the first time they are drawn, scaled to fit their cells.
  void rasterise(Entry& e, int cells) {
    const double boxW = cells * cellW_;
    const double scale = std::min({1.0, boxW / std::max(1.0, e.advance), cellH_ / std::max(1.0, e.lineHeight)});
    const QSize natural(std::max(1, int(std::ceil(e.advance * dpr_))), std::max(1, int(std::ceil(e.lineHeight * dpr_))));
    QImage img(natural, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    {
      QPainter ip(&img);
      ip.scale(dpr_, dpr_);
      ip.setPen(Qt::black);
      for (const Glyph& g : e.glyphs) {
        QGlyphRun run;
        run.setRawFont(rawFonts_[g.font]);
        run.setGlyphIndexes({g.index});
        run.setPositions({g.offset + QPointF(0, e.lineAscent)});
        ip.drawGlyphRun(QPointF(0, 0), run);
      }
    }
    const double w = e.advance * scale;
    const double h = e.lineHeight * scale;
    if (scale < 1.0) {
      img = img.scaled(std::max(1, int(std::round(w * dpr_))), std::max(1, int(std::round(h * dpr_))), Qt::IgnoreAspectRatio,
                       Qt::SmoothTransformation);
    }
    e.pixmap = QPixmap::fromImage(img);
    e.pixmap.setDevicePixelRatio(dpr_);
    e.image = e.pixmap.toImage();
    e.pixmapAt = QPointF((boxW - w) / 2, (cellH_ - h) / 2);
    e.pixmapCells = cells;
  }

  void queue(const Entry& ce, int col, int row, int cells, int32_t rgb) {
    Entry& e = const_cast<Entry&>(ce);
    const double x = col * cellW_;
    const double top = row * cellH_;
    if (e.colour) {
      if (e.pixmap.isNull() || e.pixmapCells != cells) rasterise(e, cells);
      pictures_.push_back({QPointF(x, top) + e.pixmapAt, &e});
      return;
    }
    // Glyphs narrower than their two cells (CJK in a fallback font) sit in the middle of them.
    const double box = cells * cellW_;
    const double dx = cells > 1 && e.advance < box ? (box - e.advance) / 2 : 0;
    const QPointF origin(x + dx, top + ascent_);
    for (const Glyph& g : e.glyphs) {
      // Neighbouring glyphs mostly share font and colour: the last batch is looked up once.
      const uint64_t key = (uint64_t(g.font) << 32) | uint32_t(rgb);
      if (!lastBatch_ || key != lastKey_) {
        auto it = batches_.find(key);
        if (it == batches_.end()) {
          it = batches_.emplace(key, Batch()).first;
          it->second.font = g.font;
          it->second.rgb = qRgb(rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff);
        }
        lastKey_ = key;
        lastBatch_ = &it->second;
      }
      if (lastBatch_->indexes.isEmpty()) used_.push_back(key);
      lastBatch_->indexes.push_back(g.index);
      lastBatch_->positions.push_back(origin + g.offset);
    }
  }

  void flush(QPainter& p) {
    for (uint64_t key : used_) {
      Batch& b = batches_[key];
      QGlyphRun run;
      run.setRawFont(rawFonts_[b.font]);
      run.setGlyphIndexes(b.indexes);
      run.setPositions(b.positions);
      p.setPen(QColor(b.rgb));
      p.drawGlyphRun(QPointF(0, 0), run);
      run = QGlyphRun();
      b.indexes.clear();
      b.positions.clear();
    }
    used_.clear();
    for (auto& [at, entry] : pictures_) p.drawPixmap(at, entry->pixmap);
    pictures_.clear();
  }

  QFont fonts_[kSlots];
  double cellW_;
  double cellH_;
  double ascent_;
  double dpr_ = 0;
  size_t entries_ = 0;
  std::vector<QRawFont> rawFonts_;
  std::unique_ptr<Entry> ascii_[kSlots][kAsciiEnd];
  std::unordered_map<char32_t, std::unique_ptr<Entry>> singles_[kSlots];
  std::unordered_map<QString, std::unique_ptr<Entry>, QStringHash> clusters_[kSlots];
  std::unordered_map<uint64_t, Batch> batches_;
  std::vector<uint64_t> used_;
  std::vector<std::pair<QPointF, const Entry*>> pictures_;
  gridpaint::GlyphBlitter blit_;
  QRawFont probe_;
  bool directText_ = true;
  bool direct_ = false;  // this paint writes glyphs straight into the device's image
  // What drawBands gathers: operand offsets of the fills, lines, arcs and strings since the last
  // flush, and per band of rows the ones touching it, its glyphs and its colour glyphs.
  struct BandGlyph {
    int32_t batch;  // index into used_
    int32_t glyph;  // index in that batch
    gridpaint::Placed placed;
    bool viaQt;
    bool inside;  // a Qt-drawn glyph wholly inside one band (drawn there without a clip)
  };
  // A glyph and the logical rows [top, bottom) it can touch.
  struct PlacedGlyph {
    BandGlyph glyph;
    double top;
    double bottom;
  };
  std::vector<PlacedGlyph> placed_;
  std::vector<Batch*> order_;  // the batches in used_ order, for this drawBands
  // The batch queue() added to last (batches_ is node-based: the pointer stays valid).
  uint64_t lastKey_ = 0;
  Batch* lastBatch_ = nullptr;
  std::unordered_map<uint64_t, QRectF> outlines_;
  std::vector<size_t> pending_;
  std::vector<std::vector<int32_t>> bandOps_;
  std::vector<std::vector<BandGlyph>> bandGlyphs_;
  std::vector<std::vector<int32_t>> bandPictures_;
};

}  // namespace

// ---- Node bindings ----------------------------------------------------------------------

namespace {

#define CHECK(call)                                                       \
  do {                                                                    \
    if ((call) != napi_ok) {                                              \
      napi_throw_error(env, nullptr, "gridpaint: N-API call failed: " #call); \
      return nullptr;                                                     \
    }                                                                     \
  } while (0)

napi_value fail(napi_env env, const std::string& msg) {
  napi_throw_error(env, nullptr, ("gridpaint: " + msg).c_str());
  return nullptr;
}

bool getString(napi_env env, napi_value v, QString& out) {
  size_t len = 0;
  if (napi_get_value_string_utf16(env, v, nullptr, 0, &len) != napi_ok) return false;
  // An empty QString's data() is a shared read-only buffer: N-API's terminator must not go there.
  if (len == 0) {
    out.clear();
    return true;
  }
  out.resize(static_cast<qsizetype>(len));
  return napi_get_value_string_utf16(env, v, reinterpret_cast<char16_t*>(out.data()), len + 1, &len) == napi_ok;
}

double getNumber(napi_env env, napi_value v, bool& ok) {
  double d = 0;
  if (napi_get_value_double(env, v, &d) != napi_ok) ok = false;
  return d;
}

Painter* getPainter(napi_env env, napi_value v) {
  void* data = nullptr;
  if (napi_get_value_external(env, v, &data) != napi_ok) return nullptr;
  return static_cast<Painter*>(data);
}

// The frame arguments shared by both paint calls: ops (Int32Array), how many of its ints are used,
// and the text they index. Every operation is checked before anything is painted.
struct FrameArgs {
  const int32_t* ops = nullptr;
  size_t count = 0;
  QString text;
};

bool getFrame(napi_env env, napi_value* argv, FrameArgs& f) {
  bool isTyped = false;
  napi_is_typedarray(env, argv[0], &isTyped);
  if (!isTyped) return fail(env, "ops must be an Int32Array"), false;
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  napi_get_typedarray_info(env, argv[0], &type, &length, &data, nullptr, nullptr);
  if (type != napi_int32_array) return fail(env, "ops must be an Int32Array"), false;
  bool ok = true;
  const double count = getNumber(env, argv[1], ok);
  if (!ok || count < 0 || count > length || count != std::floor(count)) {
    return fail(env, "op count " + QString::number(count).toStdString() + " is outside the ops array (" + std::to_string(length) + ")"), false;
  }
  if (!getString(env, argv[2], f.text)) return fail(env, "text must be a string"), false;
  f.ops = static_cast<const int32_t*>(data);
  f.count = static_cast<size_t>(count);
  const qsizetype textLen = f.text.size();
  for (size_t i = 0; i < f.count;) {
    const int32_t op = f.ops[i];
    if (op < kFill || op > kString) return fail(env, "unknown op " + std::to_string(op) + " at " + std::to_string(i)), false;
    if (i + 1 + kOperands[op] > f.count) return fail(env, "op " + std::to_string(op) + " at " + std::to_string(i) + " is cut off"), false;
    const int32_t* a = f.ops + i + 1;
    int startAt = op == kText || op == kCluster ? 5 : op == kString ? 4 : -1;
    if (startAt >= 0 && (a[startAt] < 0 || a[startAt + 1] < 0 || a[startAt] + a[startAt + 1] > textLen)) {
      return fail(env, "op " + std::to_string(op) + " at " + std::to_string(i) + " reads text outside the string"), false;
    }
    if (op == kText && (a[2] < 1 || a[2] > 2)) return fail(env, "text op at " + std::to_string(i) + " has cell width " + std::to_string(a[2])), false;
    if (op == kText) {
      for (int32_t k = 0; k < a[6]; k++) {
        if (f.text.at(a[5] + k).isSurrogate()) return fail(env, "text op at " + std::to_string(i) + " holds a surrogate (use a cluster op)"), false;
      }
    }
    i += 1 + kOperands[op];
  }
  return true;
}

// Reads exactly `n` arguments and the painter in the first one; throws with `usage` otherwise.
Painter* painterCall(napi_env env, napi_callback_info info, size_t n, napi_value* argv, const char* usage) {
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < n) {
    fail(env, std::string(usage) + " takes " + std::to_string(n) + " arguments");
    return nullptr;
  }
  Painter* painter = getPainter(env, argv[0]);
  if (!painter) fail(env, std::string(usage) + ": the first argument is not a painter from create()");
  return painter;
}

bool haveApp(napi_env env) {
  if (QCoreApplication::instance() && qobject_cast<QGuiApplication*>(QCoreApplication::instance())) return true;
  fail(env, "needs a QApplication (load NodeGUI first)");
  return false;
}

// create(family, pointSize, cellW, cellH, ascent) -> painter handle
napi_value Create(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  if (argc < 5) return fail(env, "create(family, pointSize, cellW, cellH, ascent) takes 5 arguments");
  if (!haveApp(env)) return nullptr;
  QString family;
  if (!getString(env, argv[0], family)) return fail(env, "family must be a string");
  bool ok = true;
  const double size = getNumber(env, argv[1], ok);
  const double cellW = getNumber(env, argv[2], ok);
  const double cellH = getNumber(env, argv[3], ok);
  const double ascent = getNumber(env, argv[4], ok);
  if (!ok || !(size > 0) || !(cellW > 0) || !(cellH >= 1)) return fail(env, "point size and cell size must be positive numbers");
  auto* p = new Painter(family, size, cellW, static_cast<int>(cellH), static_cast<int>(ascent));
  napi_value out;
  CHECK(napi_create_external(env, p, [](napi_env, void* data, void*) { delete static_cast<Painter*>(data); }, nullptr, &out));
  return out;
}

// The QWidget behind widget.native.__external_qobject__(), or null with a JS error thrown.
QWidget* widgetArg(napi_env env, napi_value value) {
  void* obj = nullptr;
  if (napi_get_value_external(env, value, &obj) != napi_ok) {
    fail(env, "widget must be widget.native.__external_qobject__()");
    return nullptr;
  }
  QWidget* widget = qobject_cast<QWidget*>(static_cast<QObject*>(obj));
  if (!widget) fail(env, "the external is not a QWidget");
  return widget;
}

// A call whose first of `n` arguments is a widget: the arguments in argv, and the widget (null,
// with the error thrown, when an argument is missing or the first is no widget).
QWidget* widgetCall(napi_env env, napi_callback_info info, size_t n, napi_value* argv, const char* usage) {
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < n) {
    fail(env, std::string(usage) + " takes " + std::to_string(n) + " arguments");
    return nullptr;
  }
  return widgetArg(env, argv[0]);
}

// paintWidget(painter, widget external QObject, ops, count, text): call from the widget's paint event.
napi_value PaintWidget(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Painter* painter = painterCall(env, info, 5, argv, "paintWidget(painter, widget, ops, count, text)");
  if (!painter) return nullptr;
  QWidget* widget = widgetArg(env, argv[1]);
  if (!widget) return nullptr;
  FrameArgs f;
  if (!getFrame(env, argv + 2, f)) return nullptr;
  QPainter p(widget);
  painter->paint(p, widget->devicePixelRatioF(), f.ops, f.count, f.text);
  return nullptr;
}

// paintRows(painter, widget external QObject, y, height, ops, count, text) -> whether the ops were
// painted: repaints that band of the widget now, as QWidget::repaint(QRect) does (NodeGUI exposes
// only the whole-widget repaint), painting the given ops in its paint event right here, without a
// call back into JavaScript (about 0.06 ms of a keystroke's echo on this machine). Only the band
// is flushed to the window system: a key's echo sends one row's pixels to the X server. False when
// Qt's paint event covered more than the band (it had other parts of the widget to repaint) or
// never came (the widget is hidden): the event then went, or will go, to the widget's own paint
// handler, which paints what it owes.
class BandPaint : public QObject {
 public:
  BandPaint(QWidget* target, const QRect& band, Painter* painter, const FrameArgs& frame)
      : target_(target), band_(band), painter_(painter), frame_(frame) {}
  bool painted() const { return painted_; }

 protected:
  bool eventFilter(QObject* o, QEvent* e) override {
    if (o != target_ || e->type() != QEvent::Paint || painted_) return false;
    if (!band_.contains(static_cast<QPaintEvent*>(e)->rect())) return false;
    QPainter p(target_);
    painter_->paint(p, target_->devicePixelRatioF(), frame_.ops, frame_.count, frame_.text);
    painted_ = true;
    return true;
  }

 private:
  QWidget* target_;
  QRect band_;
  Painter* painter_;
  const FrameArgs& frame_;
  bool painted_ = false;
};

napi_value PaintRows(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Painter* painter = painterCall(env, info, 7, argv, "paintRows(painter, widget, y, height, ops, count, text)");
  if (!painter) return nullptr;
  QWidget* widget = widgetArg(env, argv[1]);
  if (!widget) return nullptr;
  bool ok = true;
  const double y = getNumber(env, argv[2], ok);
  const double h = getNumber(env, argv[3], ok);
  if (!ok || !(h > 0)) return fail(env, "y and height must be numbers, height positive");
  FrameArgs f;
  if (!getFrame(env, argv + 4, f)) return nullptr;
  const QRect band(0, static_cast<int>(std::floor(y)), widget->width(), static_cast<int>(std::ceil(h)));
  BandPaint filter(widget, band, painter, f);
  widget->installEventFilter(&filter);
  widget->repaint(band);
  widget->removeEventFilter(&filter);
  napi_value out;
  CHECK(napi_get_boolean(env, filter.painted(), &out));
  return out;
}

// watchKeys(widget external QObject, onKey): the widget's key presses go to
// onKey(key, modifiers, text) -> boolean straight from Qt, not through NodeGUI's event wrapper and
// three calls back for the event's fields; true ends the event (as setEventProcessed(true) does),
// false lets Qt go on with it. A key that types text with no Ctrl, Alt or Meta also tells Qt, when it
// asks (ShortcutOverride), that the terminal wants it: Qt then skips its search of the application's
// shortcuts. Together about 0.15 ms of a keystroke's echo on this machine.
class KeyWatch : public QObject {
 public:
  KeyWatch(QWidget* widget, napi_env env, napi_value onKey) : QObject(widget), env_(env) {
    napi_create_reference(env, onKey, 1, &onKey_);
  }
  ~KeyWatch() override { napi_delete_reference(env_, onKey_); }

 protected:
  bool eventFilter(QObject*, QEvent* e) override {
    if (e->type() == QEvent::ShortcutOverride) {
      if (!typesText(static_cast<QKeyEvent*>(e))) return false;
      e->accept();
      return true;
    }
    if (e->type() != QEvent::KeyPress) return false;
    return deliver(static_cast<QKeyEvent*>(e));
  }

 private:
  static bool typesText(const QKeyEvent* k) {
    if (k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
    const QString t = k->text();
    if (t.isEmpty()) return false;
    for (const QChar c : t)
      if (c.unicode() < 0x20 || c.unicode() == 0x7f) return false;
    return true;
  }

  bool deliver(const QKeyEvent* k) {
    napi_handle_scope scope;
    if (napi_open_handle_scope(env_, &scope) != napi_ok) return false;
    bool ended = false;
    napi_value fn, recv, args[3], result;
    const QString text = k->text();
    if (napi_get_reference_value(env_, onKey_, &fn) == napi_ok && fn != nullptr && napi_get_undefined(env_, &recv) == napi_ok &&
        napi_create_int32(env_, k->key(), &args[0]) == napi_ok &&
        napi_create_int32(env_, static_cast<int32_t>(k->modifiers().toInt()), &args[1]) == napi_ok &&
        napi_create_string_utf16(env_, reinterpret_cast<const char16_t*>(text.utf16()), size_t(text.size()), &args[2]) == napi_ok) {
      if (napi_call_function(env_, recv, fn, 3, args, &result) == napi_ok) {
        napi_get_value_bool(env_, result, &ended);
      } else {
        // A throw in the handler is an uncaught exception, as in any other event callback.
        napi_value error;
        if (napi_get_and_clear_last_exception(env_, &error) == napi_ok) napi_fatal_exception(env_, error);
      }
    }
    napi_close_handle_scope(env_, scope);
    return ended;
  }

  napi_env env_;
  napi_ref onKey_ = nullptr;
};

napi_value WatchKeys(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  QWidget* widget = widgetCall(env, info, 2, argv, "watchKeys(widget, onKey)");
  if (!widget) return nullptr;
  napi_valuetype type;
  CHECK(napi_typeof(env, argv[1], &type));
  if (type != napi_function) return fail(env, "onKey must be a function");
  // Owned by the widget: deleted with it, and the handler's reference with it.
  widget->installEventFilter(new KeyWatch(widget, env, argv[1]));
  return nullptr;
}

// settleFlush(widget external QObject) -> whether it waited: on X11, waits until the X server has
// read what the widget's window last flushed from shared memory. Qt's xcb backing store makes
// that round trip at the start of the next paint that touches a flushed region, which puts it on
// the way of a keystroke's echo (about 0.15 ms here); called while the window is idle, it leaves
// the next paint nothing to wait for. Beginning and ending a paint of the widget's area, painting
// nothing, is how the backing store's public API reaches it. Elsewhere (macOS) it does nothing.
napi_value SettleFlush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  QWidget* widget = widgetCall(env, info, 1, argv, "settleFlush(widget)");
  if (!widget) return nullptr;
  bool waited = false;
  QBackingStore* store = widget->isVisible() ? widget->backingStore() : nullptr;
  if (store && QGuiApplication::platformName() == QLatin1String("xcb") && widget->width() > 0 && widget->height() > 0) {
    store->beginPaint(QRegion(QRect(widget->mapTo(widget->window(), QPoint(0, 0)), widget->size())));
    store->endPaint();
    waited = true;
  }
  napi_value out;
  CHECK(napi_get_boolean(env, waited, &out));
  return out;
}

// paintImage(painter, width, height, dpr, ops, count, text) -> ArrayBuffer of 32-bit 0xAARRGGBB
// pixels, (width × dpr) × (height × dpr): the same painting offscreen, for tests and benchmarks.
napi_value PaintImage(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Painter* painter = painterCall(env, info, 7, argv, "paintImage(painter, width, height, dpr, ops, count, text)");
  if (!painter) return nullptr;
  bool ok = true;
  const double w = getNumber(env, argv[1], ok);
  const double h = getNumber(env, argv[2], ok);
  const double dpr = getNumber(env, argv[3], ok);
  if (!ok || !(w >= 1) || !(h >= 1) || !(dpr > 0) || w * dpr * h * dpr > 1e8) return fail(env, "image size must be positive and under 100 Mpx");
  FrameArgs f;
  if (!getFrame(env, argv + 4, f)) return nullptr;
  const int pw = static_cast<int>(std::round(w * dpr));
  const int ph = static_cast<int>(std::round(h * dpr));
  void* bytes = nullptr;
  napi_value buffer;
  CHECK(napi_create_arraybuffer(env, size_t(pw) * ph * 4, &bytes, &buffer));
  QImage img(static_cast<uchar*>(bytes), pw, ph, pw * 4, QImage::Format_RGB32);
  img.setDevicePixelRatio(dpr);
  img.fill(Qt::black);
  {
    QPainter p(&img);
    painter->paint(p, dpr, f.ops, f.count, f.text);
  }
  return buffer;
}

// A question about a painter, its one argument: `answer` turns the painter into the result.
template <typename Answer>
napi_value ask(napi_env env, napi_callback_info info, const char* usage, Answer answer) {
  napi_value argv[1];
  Painter* painter = painterCall(env, info, 1, argv, usage);
  return painter ? answer(painter) : nullptr;
}

// cachedGlyphs(painter) -> characters in the glyph cache (for tests of the cache).
napi_value CachedGlyphs(napi_env env, napi_callback_info info) {
  return ask(env, info, "cachedGlyphs(painter)", [env](Painter* painter) -> napi_value {
    napi_value out;
    CHECK(napi_create_double(env, double(painter->cachedEntries()), &out));
    return out;
  });
}

// setDirectText(painter, on): off draws every glyph with QPainter::drawGlyphRun (for tests and
// the benchmark's same-run reference); on (the default) lets the blitter write plain glyphs.
napi_value SetDirectText(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Painter* painter = painterCall(env, info, 2, argv, "setDirectText(painter, on)");
  if (!painter) return nullptr;
  bool on = true;
  if (napi_get_value_bool(env, argv[1], &on) != napi_ok) return fail(env, "setDirectText: on must be a boolean");
  painter->setDirectText(on);
  return nullptr;
}

// directTextUsed(painter) -> whether the last paint blitted its glyphs itself (for tests).
napi_value DirectTextUsed(napi_env env, napi_callback_info info) {
  return ask(env, info, "directTextUsed(painter)", [env](Painter* painter) -> napi_value {
    napi_value out;
    CHECK(napi_get_boolean(env, painter->directTextUsed(), &out));
    return out;
  });
}

// blitMasks(painter) -> glyph masks the blitter keeps (for tests).
napi_value BlitMasks(napi_env env, napi_callback_info info) {
  return ask(env, info, "blitMasks(painter)", [env](Painter* painter) -> napi_value {
    napi_value out;
    CHECK(napi_create_double(env, double(painter->blitMasks()), &out));
    return out;
  });
}

napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor props[] = {
      {"create", nullptr, Create, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"paintWidget", nullptr, PaintWidget, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"paintImage", nullptr, PaintImage, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"paintRows", nullptr, PaintRows, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"settleFlush", nullptr, SettleFlush, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"watchKeys", nullptr, WatchKeys, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"cachedGlyphs", nullptr, CachedGlyphs, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"setDirectText", nullptr, SetDirectText, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"directTextUsed", nullptr, DirectTextUsed, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"blitMasks", nullptr, BlitMasks, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
