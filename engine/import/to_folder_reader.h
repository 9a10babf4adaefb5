#pragma once
/// Reader for `GraphModule.to_folder()` output (what `debug_compile` writes): `module.py` with
/// `class FxModule(torch.nn.Module)`, `state_dict.pt`, and one `<name>.pt` per submodule that
/// could not be written as code (nested GraphModules: checkpoint bodies, cond branches).
///
/// Nothing from the folder is executed. `__init__` is read as data: submodule reprs
/// (`self.fc1 = Linear(in_features=4, ...)`), `torch.nn.Parameter`/`register_buffer` attributes
/// and `setattr(self, 'x', torch.load(...))` lines. Tensors come from the folder's own
/// `state_dict.pt`, never from the absolute path written in module.py; pickled GraphModules
/// contribute their `_code` text, which is parsed like any FX module.
#include "import/loader.h"
#include "import/pt_reader.h"
#include "ir/value.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fxray {

/// True for a folder holding `module.py` and `state_dict.pt`.
bool isToFolder(const std::filesystem::path& dir);

/// Reads a to_folder directory into one graph (format "to-folder"). State-dict tensors become
/// graph constants under their keys (what `self.x` get_attr nodes read); calls of standard
/// submodules (Linear, Conv2d, BatchNorm2d, ReLU, ...) are rewritten to ATen calls on those
/// constants; pickled GraphModule submodules become subgraphs.
Expected<LoadedFile> readToFolder(const std::filesystem::path& dir);

/// Pairs Dynamo-lifted placeholders with state-dict keys: `L_fn_modules_0_parameters_weight_`
/// is `0.weight`, `L_s_modules_bn_buffers_running_mean_` is `bn.running_mean`. Returns
/// (placeholder node name, key) for every placeholder that names an entry of `sd`.
std::vector<std::pair<std::string, std::string>> matchLiftedParameters(const Graph& g, const StateDict& sd);

/// Puts the tensors matched by matchLiftedParameters into `g.constants` under the placeholder
/// names, so that completeInputs() (pt2_reader.h) feeds them, and gives those placeholders the
/// tensors' metadata. Returns how many were bound.
size_t bindLiftedParameters(Graph& g, const StateDict& sd);

/// Gives each placeholder of g the metadata of the tensor that will feed it (one value per
/// placeholder, as completeInputs() returns them). to_folder code carries no annotations, and
/// lowering torch-level calls needs to know which arguments are tensors. Subgraphs called by
/// higher-order ops get their placeholders' metadata from the operands.
void setPlaceholderMeta(Graph& g, const std::vector<Value>& inputs);

}  // namespace fxray
