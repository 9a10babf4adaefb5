#pragma once
/// Hand-offs through Qt that ThreadSanitizer cannot see. Debian's Qt is not built with TSan, so
/// when a QThreadPool thread runs a task, or the UI thread runs a functor queued from a worker,
/// the mutex Qt synchronises on is invisible and every read of the task's captures is reported
/// as a race with the thread that built it. handoffRelease() before giving work to Qt, and
/// handoffAcquire() first thing where Qt runs it, tell TSan about the order Qt guarantees.
/// Elsewhere both are empty.
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace fxray::views {

inline char g_tsanHandoff;  ///< the one address all hand-offs synchronise on

inline void handoffRelease() {
#if defined(__SANITIZE_THREAD__)
    __tsan_release(&g_tsanHandoff);
#endif
}

inline void handoffAcquire() {
#if defined(__SANITIZE_THREAD__)
    __tsan_acquire(&g_tsanHandoff);
#endif
}

}  // namespace fxray::views
