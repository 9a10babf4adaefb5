#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <memory>

namespace fxray::views {

namespace {
Theme g_theme = Theme::Light;

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5), mid(0x45, 0x48, 0x4e);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x44));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x93));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Mid, mid);
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Light, QColor(0x50, 0x53, 0x59));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xc0));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb2, 0xff));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6e, 0x71, 0x77));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6e, 0x71, 0x77));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6e, 0x71, 0x77));
    return p;
}

QPalette lightPalette() {
    // A style made only for its palette: owned here (QApplication owns only the one it is given).
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p = fusion ? fusion->standardPalette() : QApplication::palette();
    p.setColor(QPalette::Window, QColor(0xf3, 0xf4, 0xf6));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf7, 0xf9));
    p.setColor(QPalette::Highlight, QColor(0x1a, 0x6f, 0xd8));
    return p;
}
}  // namespace

void applyTheme(Theme t) {
    g_theme = t;
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(t == Theme::Dark ? darkPalette() : lightPalette());
}

Theme currentTheme() { return g_theme; }

Theme themeFromName(const QString& name) { return name == QLatin1String("dark") ? Theme::Dark : Theme::Light; }

QString themeName(Theme t) { return t == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light"); }

}  // namespace fxray::views
