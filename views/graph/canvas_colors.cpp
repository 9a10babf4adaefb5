#include "graph/canvas_colors.h"

#include <algorithm>
#include <cmath>

#include <QGuiApplication>
#include <QPalette>

namespace fxray::views::canvas_colors {

bool darkPalette() { return QGuiApplication::palette().color(QPalette::Window).lightness() < 128; }

QColor classFill(NodeClass c, bool dark) {
    // Light: pastel fills under dark text; dark: deep fills under light text. Hues follow the
    // usual compiler-viewer convention (matmuls stand out, views recede).
    switch (c) {
    case NodeClass::Input: return dark ? QColor(0x3a, 0x4a, 0x5c) : QColor(0xdd, 0xe6, 0xf0);
    case NodeClass::Output: return dark ? QColor(0x4a, 0x4a, 0x4a) : QColor(0xe0, 0xe0, 0xe0);
    case NodeClass::Pointwise: return dark ? QColor(0x2f, 0x55, 0x3a) : QColor(0xd6, 0xef, 0xd8);
    case NodeClass::Reduction: return dark ? QColor(0x5a, 0x3e, 0x70) : QColor(0xe7, 0xd9, 0xf3);
    case NodeClass::View: return dark ? QColor(0x3b, 0x3f, 0x46) : QColor(0xf2, 0xf2, 0xf2);
    case NodeClass::Extern: return dark ? QColor(0x7a, 0x3a, 0x30) : QColor(0xf8, 0xd3, 0xc8);
    case NodeClass::Random: return dark ? QColor(0x6e, 0x5c, 0x20) : QColor(0xf6, 0xec, 0xbd);
    case NodeClass::HigherOrder: return dark ? QColor(0x24, 0x5a, 0x66) : QColor(0xcc, 0xec, 0xf1);
    case NodeClass::Creation: return dark ? QColor(0x4c, 0x4c, 0x30) : QColor(0xec, 0xec, 0xd6);
    case NodeClass::Other: return dark ? QColor(0x50, 0x50, 0x50) : QColor(0xe8, 0xe8, 0xe8);
    case NodeClass::Scalar: return dark ? QColor(0x5e, 0x34, 0x55) : QColor(0xf5, 0xd7, 0xec);
    }
    return Qt::gray;
}

QColor text(bool dark) { return dark ? QColor(0xe8, 0xe8, 0xe8) : QColor(0x20, 0x20, 0x20); }
QColor edge(bool dark) { return dark ? QColor(0x8a, 0x8f, 0x98) : QColor(0x70, 0x76, 0x80); }
QColor background(bool dark) { return dark ? QColor(0x1e, 0x1f, 0x22) : QColor(0xfb, 0xfb, 0xfc); }

QColor added(bool dark) { return dark ? QColor(0x2e, 0x8b, 0x3e) : QColor(0x8f, 0xd9, 0x8f); }
QColor removed(bool dark) { return dark ? QColor(0xc0, 0x39, 0x2b) : QColor(0xe0, 0x4a, 0x3c); }
QColor rewritten(bool dark) { return dark ? QColor(0xc8, 0x86, 0x10) : QColor(0xf5, 0xb9, 0x42); }
QColor unchanged(bool dark) { return dark ? QColor(0x35, 0x37, 0x3b) : QColor(0xf0, 0xf0, 0xf0); }

QColor forward(bool dark) { return dark ? QColor(0x2a, 0x4d, 0x78) : QColor(0xcf, 0xe0, 0xf7); }
QColor backward(bool dark) { return dark ? QColor(0x73, 0x45, 0x25) : QColor(0xf9, 0xdc, 0xc4); }
QColor unclaimed(bool dark) { return dark ? QColor(0x44, 0x44, 0x44) : QColor(0xe6, 0xe6, 0xe6); }
QColor saved(bool dark) { return dark ? QColor(0xf1, 0xc4, 0x0f) : QColor(0xd4, 0x9a, 0x00); }
QColor recomputed(bool dark) { return dark ? QColor(0x1a, 0xbc, 0x9c) : QColor(0x11, 0x8c, 0x74); }
QColor cut(bool dark) { return dark ? QColor(0xff, 0x55, 0x55) : QColor(0xd0, 0x10, 0x10); }

QColor heat(double relErr, bool dark) {
    if (!std::isfinite(relErr)) return dark ? QColor(0xd0, 0x40, 0xd0) : QColor(0xe0, 0x50, 0xe0);
    const double l = relErr > 0 ? std::log10(relErr) : kHeatLow;
    return gradient((l - kHeatLow) / (kHeatHigh - kHeatLow), dark);
}

QColor gradient(double t, bool dark) {
    t = std::clamp(t, 0.0, 1.0);
    // Hue 120 (green) -> 0 (red); the dark theme gets deeper, less bright fills for white text.
    return QColor::fromHsvF(static_cast<float>((1.0 - t) * 120.0 / 360.0), dark ? 0.75f : 0.55f, dark ? 0.62f : 0.97f);
}

QColor selection(bool dark) { return dark ? QColor(0x4d, 0xa3, 0xff) : QColor(0x1a, 0x6f, 0xd8); }
QColor searchHit(bool dark) { return dark ? QColor(0xff, 0x79, 0xc6) : QColor(0xc2, 0x18, 0x8b); }

}  // namespace fxray::views::canvas_colors
