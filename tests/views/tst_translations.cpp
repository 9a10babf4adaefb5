// Translations: the German and Simplified Chinese catalogues are compiled into the resources,
// load, and turn known strings (menus, a dock title, plurals) into the hand-written expected
// text; the English catalogue supplies the plural forms; the .ts sources have no unfinished or
// empty entry and keep every placeholder and accelerator; the main window comes up in German.
#include "test_util.h"

#include "main_window.h"
#include "settings.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

const char* const kMain = "fxray::views::MainWindow";

QString tsPath(const QString& lang) { return QStringLiteral(FXRAY_SOURCE_DIR "/translations/fxray_%1.ts").arg(lang); }

struct TsMessage {
    QString context;
    QString source;
    bool numerus = false;
    QString type;              ///< translation's type attribute ("unfinished", "vanished", ...)
    QStringList translations;  ///< the text, or one entry per numerus form
};

/// Every message of a .ts file; an empty list with `error` set if it does not parse.
QList<TsMessage> readTs(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot open ") + path;
        return {};
    }
    QList<TsMessage> out;
    QXmlStreamReader xml(&f);
    QString context;
    TsMessage msg;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        const auto name = xml.name();
        if (name == QLatin1String("name")) {
            context = xml.readElementText();
        } else if (name == QLatin1String("message")) {
            msg = TsMessage{
                context, {}, xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes"), {}, {}};
        } else if (name == QLatin1String("source")) {
            msg.source = xml.readElementText();
        } else if (name == QLatin1String("translation")) {
            msg.type = xml.attributes().value(QLatin1String("type")).toString();
            if (msg.numerus) {
                while (xml.readNextStartElement())
                    if (xml.name() == QLatin1String("numerusform"))
                        msg.translations << xml.readElementText();
                    else
                        xml.skipCurrentElement();
            } else {
                msg.translations << xml.readElementText();
            }
            out << msg;
        }
    }
    if (xml.hasError()) *error = path + QStringLiteral(": ") + xml.errorString();
    return out;
}

/// The placeholders of a string, sorted: "%1", "%2", "%n", ...
QStringList placeholders(const QString& s) {
    static const QRegularExpression re(QStringLiteral("%(?:[1-9]|n)"));
    QStringList out;
    for (auto it = re.globalMatch(s); it.hasNext();) out << it.next().captured();
    out.sort();
    return out;
}

/// Whether the string carries a menu accelerator ("&File"; not "&&" nor an HTML entity).
bool hasAccelerator(const QString& s) {
    static const QRegularExpression re(QStringLiteral("(?<!&)&(?!&|nbsp;|lt;|gt;|amp;)[^\\s]"));
    return re.match(s).hasMatch();
}

QString menuTitle(const MainWindow& w, int i) {
    const QList<QAction*> a = w.menuBar()->actions();
    return i < a.size() ? a[i]->text() : QString();
}

}  // namespace

class TestTranslations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        initRes();
        QCoreApplication::setOrganizationName(QStringLiteral("fxray-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_translations"));
        QSettings().clear();
    }
    void cleanup() { settings::installTranslator(QStringLiteral("en")); }

    void catalogueIsInTheResources_data() {
        QTest::addColumn<QString>("lang");
        for (const char* l : {"en", "de", "zh_CN"}) QTest::newRow(l) << QString::fromLatin1(l);
    }
    void catalogueIsInTheResources() {
        QFETCH(QString, lang);
        const QString qm = QStringLiteral(":/i18n/fxray_%1.qm").arg(lang);
        QVERIFY2(QFile::exists(qm), qPrintable(qm));
        QTranslator t;
        QVERIFY(t.load(qm));
        QVERIFY(!t.isEmpty());
        QCOMPARE(t.language(), lang);
    }
    void unknownLanguageIsRefused() { QVERIFY(!settings::installTranslator(QStringLiteral("xx"))); }

    void knownStrings_data() {
        QTest::addColumn<QString>("lang");
        QTest::addColumn<QString>("context");
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const char* lang, const char* ctx, const char* src, int n, const char* exp) {
            QTest::newRow(name) << QString::fromLatin1(lang) << QString::fromLatin1(ctx) << QString::fromUtf8(src) << n
                                << QString::fromUtf8(exp);
        };
        row("de file menu", "de", kMain, "&File", -1, "&Datei");
        row("de open file", "de", kMain, "&Open File...", -1, "Datei ö&ffnen…");
        row("de compile menu", "de", kMain, "&Compile", -1, "&Kompilieren");
        row("de passes dock", "de", "Panels", "Passes", -1, "Durchläufe");
        row("de inspector dock", "de", "Panels", "Inspector", -1, "Inspektor");
        row("de next pass", "de", "fxray::views::TimelinePanel", "Next Pass", -1, "Nächster Durchlauf");
        row("de node", "de", "fxray::views::NodeInspectorModel", "Node", -1, "Knoten");
        row("de plural 1", "de", "fxray::views::PartitionPanel", "fxray saves %n value(s): ", 1,
            "fxray speichert 1 Wert: ");
        row("de plural 3", "de", "fxray::views::PartitionPanel", "fxray saves %n value(s): ", 3,
            "fxray speichert 3 Werte: ");
        row("de lines 1", "de", "fxray::views::KernelArtifactModel", "%1 (%n line(s))", 1, "%1 (1 Zeile)");
        row("de lines 40", "de", "fxray::views::KernelArtifactModel", "%1 (%n line(s))", 40, "%1 (40 Zeilen)");
        row("de cli", "de", "QObject", "Debugger for PyTorch graph compilers", -1,
            "Debugger für PyTorch-Graph-Compiler");
        row("zh file menu", "zh_CN", kMain, "&File", -1, "文件(&F)");
        row("zh open file", "zh_CN", kMain, "&Open File...", -1, "打开文件(&O)…");
        row("zh passes dock", "zh_CN", "Panels", "Passes", -1, "编译遍");
        row("zh partition dock", "zh_CN", "Panels", "Partition", -1, "划分");
        row("zh next pass", "zh_CN", "fxray::views::TimelinePanel", "Next Pass", -1, "下一个编译遍");
        row("zh node", "zh_CN", "fxray::views::NodeInspectorModel", "Node", -1, "节点");
        row("zh plural 1", "zh_CN", kMain, "%1 · %n node(s)", 1, "%1 · 1 个节点");
        row("zh plural 29", "zh_CN", kMain, "%1 · %n node(s)", 29, "%1 · 29 个节点");
        row("en plural 1", "en", kMain, "%1 · %n node(s)", 1, "%1 · 1 node");
        row("en plural 2", "en", kMain, "%1 · %n node(s)", 2, "%1 · 2 nodes");
        row("en match 1", "en", "fxray::views::MatchModel", "%n match(es)", 1, "1 match");
        row("en match 5", "en", "fxray::views::MatchModel", "%n match(es)", 5, "5 matches");
        row("en not plural", "en", kMain, "&File", -1, "&File");
    }
    void knownStrings() {
        QFETCH(QString, lang);
        QFETCH(QString, context);
        QFETCH(QString, source);
        QFETCH(int, n);
        QFETCH(QString, expected);
        QVERIFY(settings::installTranslator(lang));
        const QByteArray ctx = context.toUtf8(), src = source.toUtf8();
        QCOMPARE(QCoreApplication::translate(ctx.constData(), src.constData(), nullptr, n), expected);
    }

    void tsFilesAreComplete_data() {
        QTest::addColumn<QString>("lang");
        QTest::addColumn<int>("forms");  // plural forms of the language: German and English 2, Chinese 1
        QTest::newRow("de") << QStringLiteral("de") << 2;
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN") << 1;
        QTest::newRow("en") << QStringLiteral("en") << 2;
    }
    void tsFilesAreComplete() {
        QFETCH(QString, lang);
        QFETCH(int, forms);
        QString error;
        const QList<TsMessage> msgs = readTs(tsPath(lang), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!msgs.isEmpty());
        for (const TsMessage& m : msgs) {
            // English needs only its plural forms; other entries (`ninja fxray_views_lupdate` adds
            // them) fall back to the source text.
            if (lang == QLatin1String("en") && !m.numerus) continue;
            const QString where = m.context + QStringLiteral(" / \"") + m.source + QLatin1Char('"');
            QVERIFY2(m.type.isEmpty(), qPrintable(where + QStringLiteral(" is ") + m.type));
            QCOMPARE(m.translations.size(), m.numerus ? forms : 1);
            for (const QString& t : m.translations) {
                QVERIFY2(!t.isEmpty(), qPrintable(where + QStringLiteral(" is empty")));
                // A lost or invented placeholder would show "%2" or drop a value at run time.
                const QStringList want = placeholders(m.source);
                QVERIFY2(placeholders(t) == want, qPrintable(where + QStringLiteral(" -> ") + t));
                if (hasAccelerator(m.source))
                    QVERIFY2(hasAccelerator(t), qPrintable(where + QStringLiteral(" lost its accelerator: ") + t));
            }
        }
    }
    void languagesCoverTheSameStrings() {
        QString error;
        auto keys = [&](const QString& lang, bool numerusOnly) {
            QSet<QString> out;
            for (const TsMessage& m : readTs(tsPath(lang), &error))
                if (!numerusOnly || m.numerus) out.insert(m.context + QLatin1Char('\x1f') + m.source);
            return out;
        };
        const QSet<QString> de = keys(QStringLiteral("de"), false);
        QCOMPARE(keys(QStringLiteral("zh_CN"), false), de);
        QCOMPARE(keys(QStringLiteral("en"), true), keys(QStringLiteral("de"), true));
        QVERIFY(error.isEmpty());
        // The catalogue holds every string the views translate: a sample from each part.
        for (const char* s : {"fxray::views::MainWindow\x1f&File", "Panels\x1fKernels", "CanvasGraph\x1fpointwise",
                              "fxray::views::GraphCanvas\x1f&Fit to Window", "QObject\x1fNode to select"})
            QVERIFY2(de.contains(QString::fromUtf8(s)), s);
    }

    void mainWindowInGerman() {
        QVERIFY(settings::installTranslator(QStringLiteral("de")));
        MainWindow w;
        QCOMPARE(menuTitle(w, 0), QStringLiteral("&Datei"));
        QCOMPARE(menuTitle(w, 1), QStringLiteral("&Ansicht"));
        auto* passes = w.findChild<QDockWidget*>(QStringLiteral("dock.timeline"));
        QVERIFY(passes);
        QCOMPARE(passes->windowTitle(), QStringLiteral("Durchläufe"));
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        QVERIFY(w.openFile(QString::fromStdString((fxtest::corpus() / "mlp/numerics/joint.py").string())));
        auto* info = w.findChild<QLabel*>(QStringLiteral("statusGraph"));
        QVERIFY(info);
        // mlp's joint graph as PyTorch recorded it has 29 nodes.
        QVERIFY2(info->text().endsWith(QStringLiteral("29 Knoten")), qPrintable(info->text()));
    }
    void mainWindowInChinese() {
        QVERIFY(settings::installTranslator(QStringLiteral("zh_CN")));
        MainWindow w;
        QCOMPARE(menuTitle(w, 0), QStringLiteral("文件(&F)"));
        QCOMPARE(w.findChild<QDockWidget*>(QStringLiteral("dock.partition"))->windowTitle(), QStringLiteral("划分"));
    }
    void englishIsTheDefault() {
        QCOMPARE(settings::language(), QStringLiteral("en"));
        QVERIFY(settings::installTranslator(settings::language()));
        MainWindow w;
        QCOMPARE(menuTitle(w, 0), QStringLiteral("&File"));
    }
};

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
