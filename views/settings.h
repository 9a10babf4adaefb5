#pragma once
/// User settings kept in QSettings (theme, language, recent files) and the Settings dialog.
/// Translations: English is the source language; `translations/fxray_<lang>.ts` are compiled
/// into the resources as `:/i18n/fxray_<lang>.qm` (views/CMakeLists.txt). The language is read
/// at startup (`--lang CODE` overrides the setting); a change in the dialog applies on restart.
#include <QDialog>
#include <QStringList>

class QComboBox;

namespace fxray::views {

namespace settings {
QString language();  ///< "en" (default), "de", "zh_CN"
void setLanguage(const QString& code);
QString theme();  ///< "light" (default) or "dark"
void setTheme(const QString& name);
QStringList recentFiles();
void addRecentFile(const QString& path);
void clearRecentFiles();
/// The languages offered: code and native name.
QList<QPair<QString, QString>> languages();
/// Installs the translator for `code` from `:/i18n`, replacing the one installed before, plus
/// Qt's own `qtbase_<code>.qm` where the system has it. English is installed too: its .qm holds
/// the plural forms. False if `code` has no translation.
bool installTranslator(const QString& code);
/// The language installTranslator() last installed ("en" before any).
QString installedLanguage();
/// Chinese text needs a font with CJK glyphs (Qt draws boxes without one): for "zh_CN" when
/// `haveCjkFont` is false, a note naming the Debian package to install; otherwise empty.
QString missingFontNote(const QString& code, bool haveCjkFont);
/// Whether the font database has a family that writes Simplified Chinese.
bool haveCjkFont();
}  // namespace settings

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(QWidget* parent = nullptr);
    QString language() const;
    QString theme() const;

private:
    QComboBox* m_language = nullptr;
    QComboBox* m_theme = nullptr;
};

}  // namespace fxray::views
