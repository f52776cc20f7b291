// SPDX-License-Identifier: MIT
#pragma once

// Writing a synthetic model (synth/synthetic_model.h) into a test's temporary folder and loading
// it; the test stops with the reason when either fails.

#include "model/architecture.h"
#include "synth/synthetic_families.h"
#include "synth/synthetic_model.h"

#include <hearth/model.h>

#include <QString>
#include <QTemporaryDir>
#include <QtGlobal>

#include <memory>
#include <string>

namespace hearth::test {

// @p architecture's synthetic @p shape, with the family's own FFN activation.
inline synth::SynthOptions familyOptions(const QString& architecture, const QString& shape, DType type = DType::F32)
{
    synth::SynthOptions options;
    options.architecture = architecture.toStdString();
    options.shape = *synth::shapeByName(options.architecture, shape.toStdString());
    options.type = type;
    options.ffnActivation = std::string(model::ffnActivationName(model::findArchitecture(options.architecture)->llama.activation));
    return options;
}

inline std::shared_ptr<const Model> writeAndLoad(const QTemporaryDir& dir, const QString& name,
                                                 const synth::SynthOptions& options, std::string* writtenPath = nullptr)
{
    const std::string path = dir.filePath(name).toStdString();
    const Status written = synth::writeSyntheticModel(options, path);
    if (!written.ok())
        qFatal("%s", written.message().c_str());
    auto model = Model::load(path);
    if (!model)
        qFatal("%s", model.message().c_str());
    if (writtenPath)
        *writtenPath = path;
    return *model;
}

} // namespace hearth::test
