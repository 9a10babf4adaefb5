#pragma once
/// The symbols a TORCH_TRACE compile created (`create_symbol`: symbol, val, vr, source) or
/// specialized (`symbolic_shape_specialization`: symbol, value, sources, reason), as hints for
/// the graphs of that compile: `fxray run TRACE --graph ...` draws random inputs at the sizes
/// PyTorch traced (Graph::symbolHints, exec/shape_binding.h completeBinding).
#include "ir/graph.h"
#include "ir/sym_expr.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fxray {

/// The (symbol, value) a create_symbol / create_unbacked_symbol / symbolic_shape_specialization
/// record gives, or nullopt when it names no symbol or no readable value ("16", "1.5",
/// "True"; unbacked symbols have none).
std::optional<std::pair<std::string, sym::Num>> traceSymbolHint(std::string_view kind, const nlohmann::json& v);

/// Sets the hints on g and its subgraphs (symbols g already has keep their value), and on every
/// symbolic size and stride they determine (SymInt::hint; TensorMeta::shape keeps its rule).
void addSymbolHints(Graph& g, const sym::Binding& hints);

}  // namespace fxray
