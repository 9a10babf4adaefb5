#include "gui_main.h"

#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>

// Resources compiled into a static library must be registered explicitly (outside namespaces).
static void initFxrayResources() { Q_INIT_RESOURCE(resources); }

namespace fxray::views {

int guiMain(int argc, char** argv) {
    QApplication app(argc, argv);
    initFxrayResources();
    QApplication::setApplicationName(QStringLiteral("fxray"));
    QApplication::setOrganizationName(QStringLiteral("fxray"));
    QApplication::setApplicationVersion(QStringLiteral(FXRAY_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(QObject::tr("Debugger for PyTorch graph compilers"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QObject::tr("Graph file to open"));
    QCommandLineOption shot(QStringLiteral("screenshot"), QObject::tr("Render the window to PNG and exit"),
                            QStringLiteral("png"));
    parser.addOption(shot);
    parser.process(app);

    MainWindow w;
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty()) w.openFile(files.first());
    if (parser.isSet(shot)) {
        w.resize(1280, 800);
        w.show();
        QApplication::processEvents();
        return w.grab().save(parser.value(shot)) ? 0 : 2;
    }
    w.show();
    return app.exec();
}

} // namespace fxray::views
