#include "settings.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLibraryInfo>
#include <QSettings>
#include <QTranslator>
#include <QVBoxLayout>

namespace fxray::views {

namespace settings {

QString language() { return QSettings().value(QStringLiteral("ui/language"), QStringLiteral("en")).toString(); }
void setLanguage(const QString& code) { QSettings().setValue(QStringLiteral("ui/language"), code); }
QString theme() { return QSettings().value(QStringLiteral("ui/theme"), QStringLiteral("light")).toString(); }
void setTheme(const QString& name) { QSettings().setValue(QStringLiteral("ui/theme"), name); }

QStringList recentFiles() { return QSettings().value(QStringLiteral("recentFiles")).toStringList(); }

void addRecentFile(const QString& path) {
    QStringList recent = recentFiles();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 12) recent.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), recent);
}

void clearRecentFiles() { QSettings().remove(QStringLiteral("recentFiles")); }

QList<QPair<QString, QString>> languages() {
    return {{QStringLiteral("en"), QStringLiteral("English")},
            {QStringLiteral("de"), QStringLiteral("Deutsch")},
            {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
}

namespace {
QString& installed() {
    static QString lang = QStringLiteral("en");
    return lang;
}
}  // namespace

QString installedLanguage() { return installed(); }

bool haveCjkFont() { return !QFontDatabase::families(QFontDatabase::SimplifiedChinese).isEmpty(); }

QString missingFontNote(const QString& code, bool haveCjkFont) {
    if (code != QLatin1String("zh_CN") || haveCjkFont) return {};
    // Not translated on purpose: whoever reads it cannot read the Chinese glyphs yet.
    return QStringLiteral(
        "No font with Chinese glyphs was found: install one (Debian: fonts-noto-cjk or fonts-wqy-microhei) "
        "and restart fxray.");
}

bool installTranslator(const QString& code) {
    // One translator pair at a time: switching languages replaces the previous one.
    static QTranslator* own = nullptr;
    static QTranslator* qtbase = nullptr;
    for (QTranslator** t : {&own, &qtbase})
        if (*t) {
            QCoreApplication::removeTranslator(*t);
            delete *t;
            *t = nullptr;
        }
    // English is the source language, but its .qm carries the plural forms ("1 node", "2 nodes").
    const QString lang = code.isEmpty() ? QStringLiteral("en") : code;
    auto* tr = new QTranslator(QCoreApplication::instance());
    if (!tr->load(QStringLiteral(":/i18n/fxray_") + lang + QStringLiteral(".qm"))) {
        delete tr;
        return false;
    }
    QCoreApplication::installTranslator(tr);
    own = tr;
    installed() = lang;
    if (lang == QLatin1String("en")) return true;
    // Qt's own strings (dialog buttons, context menus) where the system has Qt's translations.
    auto* base = new QTranslator(QCoreApplication::instance());
    if (base->load(QStringLiteral("qtbase_") + lang, QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(base);
        qtbase = base;
    } else {
        delete base;
    }
    return true;
}

}  // namespace settings

SettingsDialog::SettingsDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    m_language = new QComboBox(this);
    m_language->setObjectName(QStringLiteral("languageCombo"));
    for (const auto& [code, name] : settings::languages()) m_language->addItem(name, code);
    m_language->setCurrentIndex(std::max(0, m_language->findData(settings::language())));
    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("themeCombo"));
    m_theme->addItem(tr("Light"), QStringLiteral("light"));
    m_theme->addItem(tr("Dark"), QStringLiteral("dark"));
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(settings::theme())));
    auto* form = new QFormLayout;
    form->addRow(tr("&Language:"), m_language);
    form->addRow(tr("&Theme:"), m_theme);
    auto* note = new QLabel(tr("A new language takes effect when fxray is restarted."), this);
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(form);
    lay->addWidget(note);
    lay->addWidget(buttons);
}

QString SettingsDialog::language() const { return m_language->currentData().toString(); }
QString SettingsDialog::theme() const { return m_theme->currentData().toString(); }

}  // namespace fxray::views
