#pragma once
/// Input descriptions from a TORCH_TRACE log. While Dynamo fakifies a frame's inputs it logs one
/// `describe_tensor` record per tensor (size, stride, dtype, device, requires_grad, is_parameter)
/// and one `describe_source` record naming where the tensor came from
/// (`L['fn']._modules['0']._parameters['weight']`). Dynamo names the graph's placeholders after
/// those sources, so the two together give each placeholder of `dynamo_output_graph` an exact
/// input spec — what `fxray run` needs to make inputs of the right layout without a repro. The AOT
/// graphs of the same compile take the Dynamo graph's inputs in order and inherit the specs.
#include "import/loader.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace fxray {

/// Dynamo's placeholder name for an input source: every run of characters that are not ASCII
/// letters or digits becomes one `_` (`L['args'][0]` -> `L_args_0_`).
std::string dynamoPlaceholderName(std::string_view source);

/// The describe records of one log, grouped by compile id.
class TraceInputCatalog {
public:
    /// `value` is the JSON object of a describe_tensor / describe_source record.
    void addTensor(const std::string& compileId, const nlohmann::json& value);
    void addSource(const std::string& compileId, const nlohmann::json& value);
    bool empty() const { return m_tensors.empty(); }

    /// Specs for the placeholders of a Dynamo graph of `compileId` whose names match a described
    /// source; placeholders without one (symbolic sizes, unnamed inputs) get none. Returns how
    /// many placeholders were described.
    size_t attach(LoadedGraph& dynamo, const std::string& compileId) const;

private:
    using Key = std::tuple<std::string, int64_t, int64_t>;  ///< compile id, describer id, tensor id
    std::map<Key, InputSpec> m_tensors;
    /// compile id -> placeholder name -> (describer id, tensor id)
    std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> m_sources;
};

/// Gives an AOT graph (joint, forward, inference) the specs of the Dynamo graph it was traced
/// from: its leading placeholders are the Dynamo inputs in order (later ones, the joint graph's
/// tangents, are described by their annotation). Specs are copied only when every described
/// shape and dtype agrees with the AOT placeholder's, so a mismatch (a graph with lifted
/// constants first, say) copies nothing. Returns the number of specs set.
size_t inheritInputSpecs(LoadedGraph& aot, const LoadedGraph& dynamo);

}  // namespace fxray
