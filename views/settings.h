#pragma once
/// User settings kept in QSettings (theme, language, recent files) and the Settings dialog.
/// Translations: English is built in; `fxray_de.qm` / `fxray_zh_CN.qm` are loaded when present
/// next to the executable (`translations/`), in the resources (`:/translations`), or in the
/// build tree.
#include <QDialog>
#include <QStringList>

class QComboBox;

namespace fxray::views {

namespace settings {
QString language();  ///< "en" (default), "de", "zh_CN"
void setLanguage(const QString& code);
QString theme();     ///< "light" (default) or "dark"
void setTheme(const QString& name);
QStringList recentFiles();
void addRecentFile(const QString& path);
void clearRecentFiles();
/// The languages offered: code and native name.
QList<QPair<QString, QString>> languages();
/// Loads and installs the translator for `code` (no-op for English). False if no .qm found.
bool installTranslator(const QString& code);
} // namespace settings

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

} // namespace fxray::views
