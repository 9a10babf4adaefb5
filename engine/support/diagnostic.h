#pragma once
/// Diagnostics and Expected<T>: how engine APIs report user errors without exceptions.
///
/// User errors (a bad file, an unknown op, a wrong input shape) are Diagnostics returned to the
/// caller; broken internal invariants are assertions. Every Diagnostic renders as one line that
/// names the file and position or the node, which is what the CLI prints before exiting with 2.
#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fxray {

/// A user-facing error with its location.
struct Diagnostic {
    std::string message;
    std::string file;  ///< path of the input file, empty when not from a file
    int line = 0;      ///< 1-based, 0 when unknown
    int column = 0;    ///< 1-based, 0 when unknown
    std::string node;  ///< graph node the error concerns, empty when none

    /// "file:line:col: node 'x': message" with the parts that are known.
    std::string str() const;
};

/// Builds a Diagnostic with just a message.
Diagnostic makeError(std::string message);

/// A value or a Diagnostic. Never throws; check `ok()` before `value()`.
template <typename T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : m_v(std::move(value)) {}
    Expected(Diagnostic d) : m_v(std::move(d)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & {
        assert(ok());
        return std::get<0>(m_v);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(m_v);
    }
    T&& value() && {
        assert(ok());
        return std::get<0>(std::move(m_v));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const Diagnostic& error() const {
        assert(!ok());
        return std::get<1>(m_v);
    }
    Diagnostic& error() {
        assert(!ok());
        return std::get<1>(m_v);
    }

private:
    std::variant<T, Diagnostic> m_v;
};

/// Success or a Diagnostic, for operations without a result.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Diagnostic d) : m_err(std::move(d)) {}
    static Status success() { return {}; }
    bool ok() const { return !m_err.has_value(); }
    explicit operator bool() const { return ok(); }
    const Diagnostic& error() const {
        assert(!ok());
        return *m_err;
    }
    Diagnostic& error() {
        assert(!ok());
        return *m_err;
    }

private:
    std::optional<Diagnostic> m_err;
};

}  // namespace fxray
