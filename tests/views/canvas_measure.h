#pragma once
// What a person would call a blank or unreadable canvas, measured on the rendered canvas area
// (the graph view's viewport, not the window): shared by the first-view tests.
#include "graph/graph_view.h"

#include <QColor>
#include <QImage>
#include <QRect>
#include <QWidget>

#include <cstdlib>

namespace fxtest {

struct CanvasMeasure {
    double painted = 0;  ///< fraction of pixels unlike the background
    double ink = 0;      ///< fraction of pixels in strong contrast with it (text, borders, edges)
};

/// Pixels of `img` outside `skip` (the minimap, which shows the graph at any zoom).
inline CanvasMeasure measureCanvas(const QImage& img, QColor background, const QRect& skip) {
    qint64 total = 0, painted = 0, ink = 0;
    const int bgL = background.lightness();
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            if (skip.contains(x, y)) continue;
            const QColor c = img.pixelColor(x, y);
            ++total;
            const int d = std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) +
                          std::abs(c.blue() - background.blue());
            if (d > 24) ++painted;
            if (std::abs(c.lightness() - bgL) > 110) ++ink;
        }
    CanvasMeasure m;
    if (total == 0) return m;
    m.painted = static_cast<double>(painted) / static_cast<double>(total);
    m.ink = static_cast<double>(ink) / static_cast<double>(total);
    return m;
}

/// The view's viewport rendered as it is on screen; magenta where nothing was drawn, so that a
/// blank render cannot pass for a painted one.
inline QImage renderViewport(fxray::views::GraphView* view) {
    QWidget* area = view->viewport();
    QImage img(area->size(), QImage::Format_ARGB32);
    img.fill(Qt::magenta);
    area->render(&img);
    return img;
}

}  // namespace fxtest
