// glyphBlit: draws the grid's glyphs and colour pictures straight into the raster image a
// QPainter paints on, with the same coverage masks and the same blend arithmetic as Qt's raster
// engine, several pixels at a time. Qt blends glyph masks one pixel at a time after a glyph-cache
// look-up per glyph, which was most of a full frame's cost. Pixel-identical to
// QPainter::drawGlyphRun: each mask is what Qt itself draws for that glyph at that sub-pixel
// position, fonts Qt blends in linear light get Qt's gamma tables, and calibrations against
// drawGlyphRun (per image format, per font, per mask of a gamma-blended font) leave to Qt whatever
// they cannot match (sub-pixel text, scaled devices, another gamma).
#pragma once

#include <QGlyphRun>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QRawFont>
#include <QRegion>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gridpaint {

// Qt's BYTE_MUL: every 8-bit channel of x times a / 255, rounded as the raster engine rounds.
inline uint32_t byteMul(uint32_t x, uint32_t a) {
  uint32_t t = (x & 0xff00ff) * a;
  t = (t + ((t >> 8) & 0xff00ff) + 0x800080) >> 8;
  t &= 0xff00ff;
  x = ((x >> 8) & 0xff00ff) * a;
  x = x + ((x >> 8) & 0xff00ff) + 0x800080;
  x &= 0xff00ff00;
  return x | t;
}

// One row of a glyph mask over the destination in opaque colour c: what Qt's raster engine does
// for an 8-bit glyph mask (coverage 255 writes c, 0 keeps the pixel, anything between blends
// BYTE_MUL(c, cov) + BYTE_MUL(dst, 255 - cov)). The formula also gives c at 255 and dst at 0, so
// the SIMD part needs no branches and still matches bit for bit.
inline void blendRow(uint32_t* dst, const uint8_t* cov, int n, uint32_t c) {
  int i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i half = _mm_set1_epi16(0x80);
  const __m128i full = _mm_set1_epi16(0xff);
  const __m128i colour = _mm_unpacklo_epi8(_mm_set1_epi32(static_cast<int>(c)), zero);  // 2 pixels, 16-bit channels
  auto mul = [&](__m128i x, __m128i a) {
    __m128i t = _mm_mullo_epi16(x, a);
    t = _mm_add_epi16(t, _mm_add_epi16(_mm_srli_epi16(t, 8), half));
    return _mm_srli_epi16(t, 8);
  };
  for (; i + 4 <= n; i += 4) {
    uint32_t four;
    std::memcpy(&four, cov + i, 4);
    if (four == 0) continue;
    // Coverage of pixels 0..3 spread over their four channels: 16-bit lanes, two pixels a register.
    const __m128i a8 = _mm_unpacklo_epi8(_mm_cvtsi32_si128(static_cast<int>(four)), zero);     // a0 a1 a2 a3 (16-bit)
    const __m128i a16 = _mm_unpacklo_epi16(a8, a8);                                             // a0 a0 a1 a1 a2 a2 a3 a3
    const __m128i aLo = _mm_unpacklo_epi32(a16, a16);                                           // a0 ×4, a1 ×4
    const __m128i aHi = _mm_unpackhi_epi32(a16, a16);                                           // a2 ×4, a3 ×4
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i));
    const __m128i dLo = _mm_unpacklo_epi8(d, zero);
    const __m128i dHi = _mm_unpackhi_epi8(d, zero);
    const __m128i lo = _mm_add_epi16(mul(colour, aLo), mul(dLo, _mm_sub_epi16(full, aLo)));
    const __m128i hi = _mm_add_epi16(mul(colour, aHi), mul(dHi, _mm_sub_epi16(full, aHi)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_packus_epi16(lo, hi));
  }
#endif
  for (; i < n; i++) {
    const uint32_t a = cov[i];
    if (a == 255) dst[i] = c;
    else if (a) dst[i] = byteMul(c, a) + byteMul(dst[i], 255 - a);
  }
}

// Qt's gamma-corrected blending of 8-bit glyph masks, used for fonts whose rasteriser darkens
// stems (CFF fonts such as Noto CJK): the destination goes to linear light through a table of
// 255·16 + 1 steps, is mixed with the text colour by coverage, and comes back through the inverse
// table. The tables are built the way Qt builds them from its font smoothing gamma, and each
// font that needs them is checked against Qt before they are used.
struct GammaTables {
  double gamma = 0;
  std::vector<uint16_t> toLinear;
  std::vector<uint16_t> fromLinear;
  // What a pixel's blend needs, looked up instead of computed: the destination's share for each
  // 8-bit channel value and coverage, the way back to 8 bits, and (for the last text colour) the
  // colour's share for each coverage.
  std::vector<uint16_t> dstShare;  // [channel << 8 | coverage]
  std::vector<uint8_t> to8;
  uint32_t srcColour = 0;
  std::vector<uint16_t> srcShare;  // [coverage * 3 + channel], channels r g b

  explicit GammaTables(double g)
      : gamma(g), toLinear(kSteps + 1), fromLinear(kSteps + 1), dstShare(256 * 256), to8(kSteps + 1), srcShare(256 * 3) {
    for (int i = 0; i <= kSteps; i++) {
      toLinear[i] = static_cast<uint16_t>(std::pow(i / double(kSteps), g) * 65280 + 0.5);
      fromLinear[i] = static_cast<uint16_t>(std::pow(i / double(kSteps), 1 / g) * 65280 + 0.5);
      to8[i] = static_cast<uint8_t>((fromLinear[i] + 0x80) >> 8);
    }
    for (uint32_t d = 0; d < 256; d++) {
      for (uint32_t a = 0; a < 256; a++) dstShare[d << 8 | a] = static_cast<uint16_t>(mul(linear(d), (255 - a) * 257));
    }
    setColour(0);
  }

  // One 8-bit channel to 16-bit linear light.
  uint32_t linear(uint32_t v) const {
    const uint32_t t = toLinear[v << 4];
    return t + (t >> 8);
  }

  // x·a/65535 rounded as Qt's multiplyAlpha65535.
  static uint32_t mul(uint32_t x, uint32_t a) {
    const uint32_t t = x * a;
    return (t + (t >> 16) + 0x8000) >> 16;
  }

  void setColour(uint32_t c) {
    srcColour = c;
    const uint32_t lin[3] = {linear(c >> 16 & 0xff), linear(c >> 8 & 0xff), linear(c & 0xff)};
    for (uint32_t a = 0; a < 256; a++) {
      for (int k = 0; k < 3; k++) srcShare[a * 3 + k] = static_cast<uint16_t>(mul(lin[k], a * 257));
    }
  }

  // Each pixel of a mask row in the text colour c: Qt's gray blend in linear light.
  void blendRow(uint32_t* dst, const uint8_t* cov, int n, uint32_t c) {
    if (c != srcColour) setColour(c);
    for (int i = 0; i < n; i++) {
      const uint32_t a = cov[i];
      if (a == 0) continue;
      const uint32_t d = dst[i];
      if (a == 255) {
        dst[i] = c;
      } else if (d < 0xff000000u) {
        dst[i] = byteMul(c, a) + byteMul(d, 255 - a);
      } else {
        const uint16_t* src = &srcShare[a * 3];
        auto channel = [&](uint32_t s, uint32_t shift) {
          uint32_t v = (s + dstShare[(d >> shift & 0xff) << 8 | a]) & 0xffff;
          v -= v >> 8;
          return static_cast<uint32_t>(to8[v >> 4]) << shift;
        };
        dst[i] = 0xff000000u | channel(src[0], 16) | channel(src[1], 8) | channel(src[2], 0);
      }
    }
  }

  static constexpr int kSteps = 255 * 16;
};

// A glyph's coverage at one sub-pixel position, placed relative to the whole pixel its position
// falls in. `viaQt` marks glyphs too large for the scratch image: those are drawn by Qt.
struct Mask {
  int dx = 0;
  int dy = 0;
  int w = 0;
  int h = 0;
  bool viaQt = false;
  std::vector<uint8_t> coverage;
};

// Where a glyph's mask goes: its top-left pixel in the device's image.
struct Placed {
  const Mask* mask = nullptr;
  int x = 0;
  int y = 0;
  bool gamma = false;  // blended in linear light (the font's mode)
};

class GlyphBlitter {
 public:
  // `cellW`/`cellH` size the scratch image a mask is captured in (logical pixels, device scale 1).
  GlyphBlitter(double cellW, int cellH) : pad_(2 * cellH), scratchW_(4 * cellH + static_cast<int>(4 * cellW)), scratchH_(5 * cellH) {}

  // Looks at the device `p` paints on: true when glyphs may be written straight into its image.
  // `probe` is a font to calibrate with (the grid's regular font).
  bool begin(QPainter& p, const QRawFont& probe) {
    target_ = Target();
    QPaintEngine* engine = p.paintEngine();
    if (!engine || engine->type() != QPaintEngine::Raster) return false;
    QPaintDevice* device = engine->paintDevice();
    if (!device || device->devType() != QInternal::Image) return false;
    QImage* image = static_cast<QImage*>(device);
    const QImage::Format format = image->format();
    if (format != QImage::Format_RGB32 && format != QImage::Format_ARGB32_Premultiplied) return false;
    const QTransform t = p.deviceTransform();
    if (t.type() > QTransform::TxTranslate || t.dx() != std::floor(t.dx()) || t.dy() != std::floor(t.dy())) return false;
    if (p.hasClipping() || p.compositionMode() != QPainter::CompositionMode_SourceOver || p.opacity() != 1.0) return false;
    if (!calibrated(format, probe)) return false;
    // Nothing outside the image or the widget, as Qt clips: a glyph's overhang stays inside.
    QRect bounds = image->rect();
    if (QPaintDevice* painted = p.device(); painted && painted != device) bounds &= t.mapRect(QRect(0, 0, painted->width(), painted->height()));
    const QRegion system = engine->systemClip();
    std::vector<QRect> clip;
    if (system.isEmpty()) {
      clip.push_back(bounds);
    } else {
      for (const QRect& r : system) clip.push_back(r & bounds);
    }
    target_ = Target(image, static_cast<int>(t.dx()), static_cast<int>(t.dy()), std::move(clip));
    return true;
  }

  // Where logical (0, 0) is in the device's image (glyph places are in device pixels).
  QPoint offset() const { return QPoint(target_.offX, target_.offY); }

  // Where `glyph` of `font` with its baseline origin at `pos` (logical pixels) goes; false when
  // Qt must draw it (too large for the scratch image, or its font blends differently).
  bool place(const QRawFont& font, int fontId, quint32 glyph, QPointF pos, Placed& out) {
    const int mode = fontMode(font, fontId, glyph);
    if (mode == kViaQt) return false;
    const int64_t x64 = fixed(pos.x() + target_.offX);
    const int64_t y64 = fixed(pos.y() + target_.offY);
    const Mask& m = mask(font, fontId, glyph, static_cast<int>(x64 & 63), static_cast<int>(y64 & 63), mode == kGamma);
    if (m.viaQt) return false;
    out.mask = &m;
    out.x = static_cast<int>(x64 >> 6) + m.dx;
    out.y = static_cast<int>(y64 >> 6) + m.dy;
    out.gamma = mode == kGamma;
    return true;
  }

  // Blends a placed glyph in opaque colour `rgb` (0xRRGGBB), inside `band` (device pixels).
  void blend(const Placed& g, QRgb rgb, const QRect& band) {
    const Mask& m = *g.mask;
    if (m.w == 0) return;
    const QRect area = QRect(g.x, g.y, m.w, m.h) & band;
    if (area.isEmpty()) return;
    const uint32_t c = 0xff000000u | rgb;
    for (const QRect& clip : target_.clip) {
      const QRect r = area & clip;
      if (r.isEmpty()) continue;
      for (int y = r.top(); y <= r.bottom(); y++) {
        auto* row = reinterpret_cast<uint32_t*>(target_.bits + y * target_.stride) + r.left();
        const uint8_t* cov = m.coverage.data() + (y - g.y) * m.w + (r.left() - g.x);
        if (g.gamma) gamma_->blendRow(row, cov, r.width(), c);
        else blendRow(row, cov, r.width(), c);
      }
    }
  }

  // A colour glyph (premultiplied ARGB) over the image inside `band` (device pixels), as Qt's
  // drawPixmap puts it: at the rounded position, source over with Qt's rounding.
  void blendPicture(const QImage& picture, QPointF at, const QRect& band) {
    const int px = static_cast<int>(std::floor(at.x() + target_.offX + 0.5));
    const int py = static_cast<int>(std::floor(at.y() + target_.offY + 0.5));
    const QRect area = QRect(px, py, picture.width(), picture.height()) & band;
    if (area.isEmpty()) return;
    for (const QRect& clip : target_.clip) {
      const QRect r = area & clip;
      for (int y = r.top(); y <= r.bottom(); y++) {
        auto* row = reinterpret_cast<uint32_t*>(target_.bits + y * target_.stride);
        const auto* src = reinterpret_cast<const uint32_t*>(picture.constScanLine(y - py)) - px;
        for (int x = r.left(); x <= r.right(); x++) {
          const uint32_t s = src[x];
          const uint32_t a = s >> 24;
          if (a == 255) row[x] = s;
          else if (s) row[x] = s + byteMul(row[x], 255 - a);
        }
      }
    }
  }

  void clear() {
    masks_.clear();
    fonts_.clear();
    steps_.clear();
  }

  size_t size() const { return masks_.size(); }

 private:
  struct Target {
    Target() = default;
    Target(QImage* image, int x, int y, std::vector<QRect> rects)
        : bits(image->bits()), stride(image->bytesPerLine()), offX(x), offY(y), clip(std::move(rects)) {}
    uchar* bits = nullptr;
    qsizetype stride = 0;
    int offX = 0;
    int offY = 0;
    std::vector<QRect> clip;  // device pixels
  };

  // QFixed::fromReal: a coordinate in 1/64 pixel, cut (not rounded) as Qt cuts it when it
  // positions glyphs; rounding put some glyphs of fractional advance on the next sub-pixel step.
  static int64_t fixed(double v) { return static_cast<int64_t>(v * 64); }

  // `check`: compare the mask with Qt's own drawing at its position before it is used (fonts
  // blended in linear light); a mask that differs is left to Qt.
  const Mask& mask(const QRawFont& font, int fontId, quint32 glyph, int fx, int fy, bool check = false) {
    fx = stepsOf(fontId)[fx];
    const uint64_t key = (uint64_t(fontId) << 44) | (uint64_t(glyph) << 12) | (uint64_t(fx) << 6) | uint64_t(fy);
    auto it = masks_.find(key);
    if (it != masks_.end()) return it->second;
    Mask m = capture(font, glyph, fx, fy);
    if (check && !m.viaQt && m.w > 0 && !sameAsQt(font, glyph, QPointF(pad_ + fx / 64.0, pad_ + fy / 64.0), m)) m.viaQt = true;
    return masks_.emplace(key, std::move(m)).first->second;
  }

  // One glyph over a varied background, drawn by Qt and blended from its mask, compared.
  bool sameAsQt(const QRawFont& font, quint32 glyph, QPointF at, const Mask& m) {
    const QRgb colour = qRgb(0xe0, 0x90, 0x30);
    QImage viaQt(scratchW_, scratchH_, QImage::Format_RGB32);
    for (int y = 0; y < viaQt.height(); y++) {
      auto* row = reinterpret_cast<uint32_t*>(viaQt.scanLine(y));
      for (int x = 0; x < viaQt.width(); x++) row[x] = 0xff000000u | uint32_t(x * 9 % 256) << 16 | uint32_t(y * 11 % 256) << 8 | uint32_t((x * 3 + y) % 256);
    }
    QImage direct = viaQt.copy();
    {
      QPainter qp(&viaQt);
      qp.setPen(QColor(colour));
      qp.drawGlyphRun(QPointF(0, 0), oneGlyph(font, glyph, at));
    }
    Target painting = std::move(target_);
    target_ = Target(&direct, 0, 0, {direct.rect()});
    const int64_t x64 = fixed(at.x()), y64 = fixed(at.y());
    Placed g;
    g.mask = &m;
    g.x = static_cast<int>(x64 >> 6) + m.dx;
    g.y = static_cast<int>(y64 >> 6) + m.dy;
    g.gamma = true;
    blend(g, colour & 0xffffff, direct.rect());
    target_ = std::move(painting);
    return direct == viaQt;
  }

  // Qt draws the glyph in white on a transparent image at the same sub-pixel position: over a
  // pixel that is not opaque Qt blends without gamma, so the alpha left is exactly the coverage.
  Mask capture(const QRawFont& font, quint32 glyph, int fx, int fy) {
    if (scratch_.isNull()) scratch_ = QImage(scratchW_, scratchH_, QImage::Format_ARGB32_Premultiplied);
    scratch_.fill(Qt::transparent);
    {
      QPainter sp(&scratch_);
      sp.setPen(Qt::white);
      sp.drawGlyphRun(QPointF(0, 0), oneGlyph(font, glyph, QPointF(pad_ + fx / 64.0, pad_ + fy / 64.0)));
    }
    int left = scratchW_, right = -1, top = scratchH_, bottom = -1;
    for (int y = 0; y < scratchH_; y++) {
      const auto* row = reinterpret_cast<const uint32_t*>(scratch_.constScanLine(y));
      for (int x = 0; x < scratchW_; x++) {
        if (row[x] >> 24) {
          left = std::min(left, x);
          right = std::max(right, x);
          top = std::min(top, y);
          bottom = std::max(bottom, y);
        }
      }
    }
    Mask m;
    if (right < 0) return m;
    if (left == 0 || top == 0 || right == scratchW_ - 1 || bottom == scratchH_ - 1) {
      m.viaQt = true;  // it may go on past the scratch image
      return m;
    }
    m.dx = left - pad_;
    m.dy = top - pad_;
    m.w = right - left + 1;
    m.h = bottom - top + 1;
    m.coverage.resize(size_t(m.w) * m.h);
    for (int y = 0; y < m.h; y++) {
      const auto* row = reinterpret_cast<const uint32_t*>(scratch_.constScanLine(top + y)) + left;
      for (int x = 0; x < m.w; x++) m.coverage[size_t(y) * m.w + x] = static_cast<uint8_t>(row[x] >> 24);
    }
    return m;
  }

  static QGlyphRun oneGlyph(const QRawFont& font, quint32 glyph, QPointF pos) {
    QGlyphRun run;
    run.setRawFont(font);
    run.setGlyphIndexes({glyph});
    run.setPositions({pos});
    return run;
  }

  // The blitter is used for an image format only if a few glyphs of the grid's font, at several
  // sub-pixel positions and colours over a varied background, come out the same both ways.
  bool calibrated(QImage::Format format, const QRawFont& probe) {
    auto known = calibration_.find(format);
    if (known != calibration_.end()) return known->second;
    const QList<quint32> glyphs = probe.glyphIndexesForString(QStringLiteral("Wg@jM#"));
    if (!steps_.count(kProbeFont)) learnSteps(kProbeFont, probe, glyphs);
    const bool ok = !glyphs.isEmpty() && agrees(format, probe, kProbeFont, glyphs, false);
    masks_.clear();
    calibration_[format] = ok;
    return ok;
  }

  // Qt draws a glyph at a few sub-pixel steps of its position (four here), not at each of the 64
  // a 1/64-pixel coordinate can take: a glyph typed at a new column mostly falls on a step whose
  // mask is already kept (a capture costs a keystroke's echo about 0.05 ms here). The steps are
  // found per font, not assumed (a font Qt places on whole pixels has other ones): two of its
  // glyphs drawn at every position, a new step wherever either changes. A position then stands
  // for the first one of its step.
  void learnSteps(int fontId, const QRawFont& font, const QList<quint32>& glyphs) {
    std::array<bool, 64> starts{};
    starts[0] = true;
    int tried = 0;
    for (qsizetype i = 0; i < glyphs.size() && tried < 2; i++) {
      if (glyphs[i] == 0) continue;
      tried++;
      Mask before = capture(font, glyphs[i], 0, 0);
      for (int fx = 1; fx < 64; fx++) {
        Mask m = capture(font, glyphs[i], fx, 0);
        if (m.viaQt || before.viaQt || m.dx != before.dx || m.dy != before.dy || m.w != before.w || m.h != before.h || m.coverage != before.coverage) starts[fx] = true;
        before = std::move(m);
      }
    }
    std::array<uint8_t, 64> step{};
    uint8_t first = 0;
    for (int fx = 0; fx < 64; fx++) {
      if (starts[fx] || tried == 0) first = static_cast<uint8_t>(fx);
      step[fx] = first;
    }
    steps_[fontId] = step;
  }

  const std::array<uint8_t, 64>& stepsOf(int fontId) const {
    static const std::array<uint8_t, 64> each = [] {
      std::array<uint8_t, 64> a{};
      for (int i = 0; i < 64; i++) a[i] = static_cast<uint8_t>(i);
      return a;
    }();
    auto it = steps_.find(fontId & ~kTesting);
    return it == steps_.end() ? each : it->second;
  }

  // Qt blends the glyphs of fonts whose rasteriser darkens stems (CFF fonts such as Noto CJK)
  // in linear light: each font is checked with the first glyph drawn from it, plainly and then
  // with the gamma values Qt's platforms use, and drawn by Qt if neither matches.
  int fontMode(const QRawFont& font, int fontId, quint32 glyph) {
    auto known = fonts_.find(fontId);
    if (known != fonts_.end()) return known->second;
    fonts_[fontId] = kPlain;  // while it is tested
    int mode = kViaQt;
    if (agrees(QImage::Format_RGB32, font, fontId, {glyph}, false)) {
      mode = kPlain;
    } else {
      // Qt has one gamma for all text: once a font matched with one, only that one is tried.
      // Before, Qt's default font smoothing gamma (1.7) first, then others platforms set.
      std::vector<double> candidates{1.7, 1.0, 1.8, 2.2, 2.0, 1.5, 1.4, 1.2, 2.31};
      if (gammaFound_) candidates = {gamma_->gamma};
      for (double g : candidates) {
        if (!gamma_ || gamma_->gamma != g) gamma_ = std::make_unique<GammaTables>(g);
        if (agrees(QImage::Format_RGB32, font, fontId, {glyph}, true)) {
          mode = kGamma;
          gammaFound_ = true;
          break;
        }
      }
    }
    if (mode != kViaQt && !steps_.count(fontId)) {
      QList<quint32> glyphs = font.glyphIndexesForString(QStringLiteral("Wg"));
      glyphs.append(glyph);
      learnSteps(fontId, font, glyphs);
    }
    fonts_[fontId] = mode;
    return mode;
  }

  bool agrees(QImage::Format format, const QRawFont& font, int fontId, const QList<quint32>& glyphs, bool gamma) {
    const QRgb colours[] = {qRgb(0x3a, 0x7f, 0xd0), qRgb(0xf0, 0xf0, 0xe8), qRgb(0x10, 0x20, 0x18)};
    QImage viaQt(scratchW_ * 2, scratchH_, format);
    for (int y = 0; y < viaQt.height(); y++) {
      auto* row = reinterpret_cast<uint32_t*>(viaQt.scanLine(y));
      for (int x = 0; x < viaQt.width(); x++) row[x] = 0xff000000u | uint32_t(x * 7 % 256) << 16 | uint32_t(y * 13 % 256) << 8 | uint32_t((x + y) % 256);
    }
    QImage direct = viaQt.copy();
    std::vector<QPointF> placed;
    for (int i = 0; i < 12; i++) placed.push_back(QPointF(pad_ / 2 + i * 0.37 * pad_ / 2, pad_ + (i % 5) * 0.3));
    {
      QPainter qp(&viaQt);
      for (size_t i = 0; i < placed.size(); i++) {
        qp.setPen(QColor(colours[i % 3]));
        qp.drawGlyphRun(QPointF(0, 0), oneGlyph(font, glyphs[i % glyphs.size()], placed[i]));
      }
    }
    // The target being painted is set aside while the test image is.
    Target painting = std::move(target_);
    target_ = Target(&direct, 0, 0, {direct.rect()});
    bool ok = true;
    for (size_t i = 0; i < placed.size() && ok; i++) {
      Placed g;
      const int64_t x64 = fixed(placed[i].x()), y64 = fixed(placed[i].y());
      const Mask& m = mask(font, fontId | kTesting, glyphs[i % glyphs.size()], static_cast<int>(x64 & 63), static_cast<int>(y64 & 63));
      if (m.viaQt) {
        ok = false;
        break;
      }
      g.mask = &m;
      g.x = static_cast<int>(x64 >> 6) + m.dx;
      g.y = static_cast<int>(y64 >> 6) + m.dy;
      g.gamma = gamma;
      blend(g, colours[i % 3] & 0xffffff, direct.rect());
    }
    target_ = std::move(painting);
    return ok && direct == viaQt;
  }

  /** The font id calibration uses for the probe font (outside the ids fonts are given). */
  static constexpr int kProbeFont = 0xfffff;
  // Added to a font's id for the masks a test captures, kept apart from the ones frames use.
  static constexpr int kTesting = 0x80000;
  static constexpr int kPlain = 0;
  static constexpr int kGamma = 1;
  static constexpr int kViaQt = -1;

  int pad_;
  int scratchW_;
  int scratchH_;
  QImage scratch_;
  Target target_;
  std::unordered_map<uint64_t, Mask> masks_;
  // Per font: for each 1/64-pixel position, the first position of its sub-pixel step (learnSteps).
  std::unordered_map<int, std::array<uint8_t, 64>> steps_;
  std::unordered_map<int, bool> calibration_;
  // Font id → how Qt blends its glyphs: kPlain, kGamma (with gamma_) or kViaQt (drawn by Qt).
  std::unordered_map<int, int> fonts_;
  std::unique_ptr<GammaTables> gamma_;
  bool gammaFound_ = false;
};

}  // namespace gridpaint
