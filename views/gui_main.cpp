#include "gui_main.h"

#include "document.h"
#include "graph/graph_canvas.h"
#include "main_window.h"
#include "panels/compile_story_panel.h"
#include "settings.h"
#include "theme.h"

#include "import/loader.h"
#include "pass/compile_trace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>
#include <cstring>

// Resources compiled into a static library must be registered explicitly (outside namespaces).
static void initFxrayResources() { Q_INIT_RESOURCE(resources); }

namespace fxray::views {

namespace {

int fail(const QString& message) {
    std::fprintf(stderr, "fxray: %s\n", message.toLocal8Bit().constData());
    return 2;
}

/// Index of the pass SEL names (its position, or the first pass of that name), or -2.
int findPass(const CompileTrace& t, const QString& sel) {
    bool isNumber = false;
    const int n = sel.toInt(&isNumber);
    if (isNumber) return n >= -1 && n < static_cast<int>(t.passes.size()) ? n : -2;
    for (size_t i = 0; i < t.passes.size(); ++i)
        if (QString::fromStdString(t.passes[i].name) == sel && t.passes[i].graph.empty()) return static_cast<int>(i);
    return -2;
}

}  // namespace

int guiMain(int argc, char** argv) {
    // A screenshot needs no display: render offscreen unless the user chose a platform.
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--screenshot") == 0 && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    initFxrayResources();
    QApplication::setApplicationName(QStringLiteral("fxray"));
    QApplication::setOrganizationName(QStringLiteral("fxray"));
    QApplication::setApplicationVersion(QStringLiteral(FXRAY_VERSION));

    // The language goes in before the options are described, so that --help is translated too.
    // Screenshots are reproducible: English unless --lang says otherwise, as with the theme below.
    bool languageGiven = false;
    bool wantsScreenshot = false;
    QString language;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--screenshot") == 0) {
            wantsScreenshot = true;
        } else if (std::strcmp(argv[i], "--lang") == 0 && i + 1 < argc) {
            language = QString::fromLocal8Bit(argv[++i]);
            languageGiven = true;
        } else if (std::strncmp(argv[i], "--lang=", 7) == 0) {
            language = QString::fromLocal8Bit(argv[i] + 7);
            languageGiven = true;
        }
    }
    if (!languageGiven) language = wantsScreenshot ? QStringLiteral("en") : settings::language();
    const bool translated = settings::installTranslator(language);

    QCommandLineParser parser;
    parser.setApplicationDescription(QObject::tr("Debugger for PyTorch graph compilers"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QObject::tr("Graph file or folder to open"));
    QCommandLineOption shot(QStringLiteral("screenshot"), QObject::tr("Render the window to PNG and exit"),
                            QStringLiteral("png"));
    QCommandLineOption graph(QStringLiteral("graph"), QObject::tr("Graph to show (index, id or stage)"),
                             QStringLiteral("sel"));
    QCommandLineOption pass(QStringLiteral("pass"), QObject::tr("Pass to show (name or index; compiles first)"),
                            QStringLiteral("pass"));
    QCommandLineOption pipeline(QStringLiteral("pipeline"), QObject::tr("Pipeline to compile (default joint)"),
                                QStringLiteral("name"));
    QCommandLineOption view(QStringLiteral("view"), QObject::tr("Canvas colouring: canvas, diff or partition"),
                            QStringLiteral("view"));
    QCommandLineOption select(QStringLiteral("select"), QObject::tr("Node to select"), QStringLiteral("node"));
    QCommandLineOption size(QStringLiteral("size"), QObject::tr("Window size for the screenshot, WxH"),
                            QStringLiteral("size"));
    QCommandLineOption theme(QStringLiteral("theme"), QObject::tr("light or dark"), QStringLiteral("theme"));
    QCommandLineOption lang(QStringLiteral("lang"),
                            QObject::tr("Language for this run: en, de or zh_CN (default: the setting)"),
                            QStringLiteral("code"));
    for (const auto& o : {shot, graph, pass, pipeline, view, select, size, theme, lang}) parser.addOption(o);
    parser.process(app);

    if (!translated && languageGiven)
        return fail(QObject::tr("no translation for language \"%1\" (en, de or zh_CN)").arg(language));
    const bool screenshot = parser.isSet(shot);
    // Screenshots are reproducible: the built-in light theme unless asked otherwise.
    applyTheme(themeFromName(parser.isSet(theme) ? parser.value(theme)
                             : screenshot        ? QStringLiteral("light")
                                                 : settings::theme()));

    MainWindow w;
    w.setQuiet(screenshot);
    Document* doc = w.document();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty()) {
        const bool ok = w.openFile(files.first());
        if (!ok && screenshot) return fail(doc->lastError());
    } else if (screenshot) {
        return fail(QObject::tr("--screenshot needs a FILE"));
    }
    // Said once, after opening (which writes its own status): Chinese without a CJK font is boxes.
    if (const QString note = settings::missingFontNote(settings::installedLanguage(), settings::haveCjkFont());
        !note.isEmpty())
        w.showNote(note);
    auto setup = [&]() -> int {
        if (parser.isSet(graph)) {
            // The CLI's rule (import/loader.h's findGraphIndex), so --graph means the same everywhere.
            auto gi = findGraphIndex(*doc->file(), parser.value(graph).toStdString());
            if (!gi.ok()) return fail(QObject::tr("no graph \"%1\" in %2").arg(parser.value(graph), files.first()));
            doc->setGraphIndex(static_cast<int>(*gi));
        }
        if (parser.isSet(pass) || parser.isSet(pipeline)) {
            const QString pl = parser.isSet(pipeline) ? parser.value(pipeline) : QStringLiteral("joint");
            if (!doc->compileSync(pl)) return fail(doc->lastError());
            if (parser.isSet(pass)) {
                const int pi = findPass(*doc->trace(), parser.value(pass));
                if (pi == -2) return fail(QObject::tr("no pass \"%1\" in pipeline %2").arg(parser.value(pass), pl));
                doc->setPassIndex(pi);
            }
        }
        if (parser.isSet(view)) {
            if (!w.canvas()->setModeByName(parser.value(view)))
                return fail(QObject::tr("unknown view \"%1\" (canvas, diff or partition)").arg(parser.value(view)));
            if (w.canvas()->mode() == GraphCanvas::Mode::Partition && !doc->partitionSync(doc->memoryBudget()))
                return fail(doc->lastError());
        }
        if (parser.isSet(select)) doc->setSelection({parser.value(select)});
        return 0;
    };
    if (doc->file()) {
        const int rc = setup();
        if (rc != 0 && screenshot) return rc;
    }
    if (screenshot) {
        QSize sz(1600, 1000);
        if (parser.isSet(size)) {
            const QStringList wh = parser.value(size).split(QLatin1Char('x'));
            if (wh.size() == 2) sz = QSize(wh[0].toInt(), wh[1].toInt()).expandedTo(QSize(400, 300));
        }
        w.resize(sz);
        w.show();
        QApplication::processEvents();
        // A trace's story is read on the pane's lane; choosing its first compile may change the graph.
        w.storyPanel()->waitForStory(120000);
        if (!w.canvas()->waitForLayout(120000)) return fail(QObject::tr("layout did not finish"));
        // Let docks settle and re-apply the selection's scroll after the final geometry.
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        if (parser.isSet(select)) w.canvas()->centerOnSelection();
        QApplication::processEvents();
        const QString out = parser.value(shot);
        // Highest PNG compression: the README's screenshot stays small.
        if (!w.grab().save(out, nullptr, 0)) return fail(QObject::tr("cannot write %1").arg(out));
        return 0;
    }
    w.show();
    return app.exec();
}

}  // namespace fxray::views
