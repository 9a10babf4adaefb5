#pragma once
/// Reader for `torch.export.save` archives (`.pt2`) and their extracted folders.
///
/// Layout (PyTorch 2.6+): one root folder holding `archive_format` ("pt2"), `archive_version`,
/// `models/<name>.json` (the serialized ExportedProgram), `data/weights/<name>_weights_config.json`
/// with raw `data/weights/<path>` files, `data/constants/...` likewise, and
/// `data/sample_inputs/<name>.pt`. Older archives hold `serialized_exported_program.json`,
/// `serialized_state_dict.pt`, `serialized_constants.pt` and `version`.
///
/// The graph is rebuilt as FX's deserializer would: placeholders from the graph inputs, one
/// call_function per node (keyword arguments where the file says so), `getitem` nodes for
/// multi-output ops, get_attr nodes and submodules for `as_graph` arguments.
#include "import/loader.h"
#include "ir/graph.h"
#include "ir/value.h"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// How torch.export feeds one placeholder (the graph signature's `input_specs`).
struct ExportInputSpec {
    enum class Kind { UserInput, Parameter, Buffer, TensorConstant, CustomObj, Token, ConstantInput };
    Kind kind = Kind::UserInput;
    std::string placeholder;  ///< node name in the graph (FX-legal: `input` becomes `input_1`)
    std::string target;       ///< fqn in the state dict ("fc1.weight") for parameters/buffers/constants
    bool persistent = true;   ///< buffers only
    bool hasValue = false;    ///< its data was in the archive and is in graph->constants[placeholder]
};
std::string_view exportInputKindName(ExportInputSpec::Kind k);

/// One entry of the signature's `output_specs` ("user_output", "buffer_mutation", ...).
struct ExportOutputSpec {
    std::string kind;
    std::string name;    ///< the graph value returned
    std::string target;  ///< mutated buffer / parameter fqn when the kind has one
};

/// The graph signature of an exported program.
struct ExportSignature {
    std::vector<ExportInputSpec> inputs;
    std::vector<ExportOutputSpec> outputs;
};

/// Everything beyond the graph that one exported program carries.
struct Pt2Model {
    std::string name;  ///< "model" for models/model.json
    ExportSignature signature;
    int schemaMajor = 0;
    int schemaMinor = 0;
    std::string torchVersion;
    /// Positional example inputs from `data/sample_inputs/<name>.pt` (pytree leaves in order).
    std::vector<Tensor> sampleArgs;
    bool haveSampleArgs = false;
};

/// A whole archive: graphs in `file.graphs`, the parallel per-model extras in `models`.
struct Pt2Archive {
    LoadedFile file;
    std::vector<Pt2Model> models;
};

/// Reads a `.pt2` file or an extracted archive folder. Weights and constants found in the
/// archive are attached to each graph's `constants` under their placeholder names; archives
/// holding only JSON members load without them (a note says so).
Expected<Pt2Archive> readPt2Archive(const std::filesystem::path& path);

/// readPt2Archive, returning just the LoadedFile (format "pt2"), for the loader.
Expected<LoadedFile> readPt2(const std::filesystem::path& path);

/// True for a folder that looks like an extracted `.pt2` (models/*.json or
/// serialized_exported_program.json, possibly under one root folder).
bool isPt2Folder(const std::filesystem::path& dir);

/// Parses one serialized ExportedProgram (JSON text). `what` names it in messages. Refuses an
/// unknown schema major version.
Expected<std::unique_ptr<Graph>> readExportedProgramJson(std::string_view json, const std::string& what,
                                                         Pt2Model* info = nullptr);

/// Inputs for every placeholder of `g`, in order: the graph's constant of that name when it has
/// one (weights attached by the readers), else the next of `userInputs`. Diagnostic when the
/// user inputs are too few or too many.
Expected<std::vector<Value>> completeInputs(const Graph& g, const std::vector<Value>& userInputs);

}  // namespace fxray
