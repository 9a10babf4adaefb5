// Compiled into every test program (fxray_testutil's interface source): the op registry is
// assembled when the test's QCoreApplication starts, before any test function runs, as the
// app's main() does first thing.
#include "registry/assemble.h"

#include <QCoreApplication>

namespace {

void assembleOpRegistry() { fxray::initOpRegistry(); }

}  // namespace

Q_COREAPP_STARTUP_FUNCTION(assembleOpRegistry)
