#pragma once
// A small command-line parser: positional arguments, --flags and --options with values
// (repeatable), with one-line errors for unknown options.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fxray::cli {

/// Parsed arguments of one subcommand.
struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> options;  ///< option -> values (flags: "")

    bool has(const std::string& o) const { return options.count(o) > 0; }
    std::string get(const std::string& o, const std::string& def = {}) const {
        auto it = options.find(o);
        return it == options.end() || it->second.empty() ? def : it->second.back();
    }
    std::vector<std::string> all(const std::string& o) const {
        auto it = options.find(o);
        return it == options.end() ? std::vector<std::string>{} : it->second;
    }
};

/// Parses `argv` against the allowed options (`valued`: take a value; `flags`: none). Returns
/// nullopt and sets `error` on an unknown option or a missing value.
std::optional<Args> parseArgs(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                              const std::set<std::string>& flags, std::string& error);

}  // namespace fxray::cli
