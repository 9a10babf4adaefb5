#include "pass/pass.h"

namespace fxray {

bool PassContext::notifyMatchFailure(const std::string& rule, const Node& node, std::string reason) {
    m_log->addNearMiss(rule, node.name(), std::move(reason));
    return false;
}

void PassContext::recordMatch(std::string rule, std::vector<std::string> nodes, std::vector<std::string> newNodes) {
    m_log->matches.push_back({std::move(rule), std::move(nodes), std::move(newNodes), m_log->graph});
}

}  // namespace fxray
