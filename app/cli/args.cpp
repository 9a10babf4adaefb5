#include "cli/args.h"

namespace fxray::cli {

std::optional<Args> parseArgs(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                              const std::set<std::string>& flags, std::string& error) {
    Args a;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& s = argv[i];
        if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
            std::string name = s, value;
            bool inlineValue = false;
            if (auto eq = s.find('='); eq != std::string::npos) {
                name = s.substr(0, eq);
                value = s.substr(eq + 1);
                inlineValue = true;
            }
            if (valued.count(name)) {
                if (!inlineValue) {
                    if (i + 1 >= argv.size()) {
                        error = "option " + name + " needs a value";
                        return std::nullopt;
                    }
                    value = argv[++i];
                }
                a.options[name].push_back(value);
            } else if (flags.count(name) && !inlineValue) {
                a.options[name].push_back("");
            } else {
                error = "unknown option " + name;
                return std::nullopt;
            }
        } else {
            a.positional.push_back(s);
        }
    }
    return a;
}

}  // namespace fxray::cli
