#pragma once
/// Light and dark themes: the Fusion style with a palette of our own (the platform's palette
/// is often half-dark on Linux), chosen in the View menu and remembered in QSettings.
#include <QString>

namespace fxray::views {

enum class Theme { Light, Dark };

/// Installs the theme's style and palette on the application.
void applyTheme(Theme t);
Theme currentTheme();
/// "light" / "dark"; unknown names give Light.
Theme themeFromName(const QString& name);
QString themeName(Theme t);

}  // namespace fxray::views
