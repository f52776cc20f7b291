// SPDX-License-Identifier: MIT
#pragma once

// The base of every model Model::load returns: it knows its registry entry, so code above the
// model layer (sessions, device layers, tools) picks what to build from the entry's block kind
// and then casts to that block's model class (LlamaModel, FalconModel, OptModel).
//
//     const auto* m = model::ArchitectureModel::of(model);
//     if (m && m->architecture().block == model::BlockKind::Llama)
//         use(static_cast<const model::LlamaModel&>(*m));

#include "model/architecture.h"

#include <hearth/model.h>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::model {

struct HyperParams;

class ArchitectureModel : public Model {
public:
    explicit ArchitectureModel(const Architecture& architecture)
        : m_architecture(architecture)
    {
    }

    [[nodiscard]] const Architecture& architecture() const { return m_architecture; }
    // The hyper-parameters every block kind reads from its file.
    [[nodiscard]] virtual const HyperParams& hyperParams() const = 0;
    // The file the weights are mapped from (its tensor table sizes the device placement).
    [[nodiscard]] virtual const gguf::GgufFile& file() const = 0;

    // @p model as one of these, or null for a Model from elsewhere (a test's stand-in).
    [[nodiscard]] static const ArchitectureModel* of(const Model& model)
    {
        return dynamic_cast<const ArchitectureModel*>(&model);
    }

private:
    const Architecture& m_architecture;
};

} // namespace hearth::model
