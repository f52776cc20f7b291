// SPDX-License-Identifier: MIT
#pragma once

// Scaffolding shared by the model family tests (tst_falcon, tst_opt): rewriting a GGUF file
// with edits, dequantizing its tensors for a double-precision reference, the reference's
// building blocks, comparison helpers and the llama.cpp vocabulary test vectors.

#include "core/dtype.h"
#include "cpu/quant.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "synth/synthetic_model.h"

#include <hearth/session.h>
#include <hearth/status.h>
#include <hearth/tokenizer.h>

#include <QTest>
#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>
#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hearth::test {

// Copies the GGUF file @p from to @p to, keeping the metadata keys @p keepKey accepts, adding
// what @p addMetadata sets, and letting @p editTensor drop a tensor (return false) or replace
// its type, shape and bytes; @p magic overrides the file's magic and @p zeroTensors are added
// as F32 zeros.
struct TensorReplacement {
    bool replace = false;
    std::string name; // empty: keep the name
    DType type = DType::F32;
    std::vector<std::int64_t> shape;
    std::vector<std::byte> bytes;
};

inline Status rewriteGguf(const std::string& from, const std::string& to, const std::function<bool(const std::string&)>& keepKey,
                          const std::function<void(gguf::GgufWriter&)>& addMetadata,
                          const std::function<bool(const gguf::TensorInfo&, TensorReplacement&)>& editTensor,
                          std::optional<gguf::Magic> magic = std::nullopt,
                          const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& zeroTensors = {})
{
    auto file = gguf::GgufFile::open(from);
    if (!file)
        return file.status();
    gguf::GgufWriter writer(magic.value_or((*file)->magic()));
    for (const auto& [key, value] : (*file)->metadata()) {
        if (!keepKey || keepKey(key))
            writer.setValue(key, value);
    }
    if (addMetadata)
        addMetadata(writer);
    struct Out {
        std::span<const std::byte> bytes;
        std::vector<std::byte> owned;
    };
    std::vector<Out> outs;
    for (const gguf::TensorInfo& t : (*file)->tensors()) {
        TensorReplacement r;
        if (editTensor && !editTensor(t, r))
            continue;
        if (r.replace) {
            writer.addTensor(r.name.empty() ? t.name : r.name, r.type, r.shape);
            outs.push_back({{}, std::move(r.bytes)});
        } else {
            writer.addTensor(t.name, t.type, t.shape);
            outs.push_back({std::span<const std::byte>(t.data, t.byteSize), {}});
        }
    }
    for (const auto& [name, shape] : zeroTensors) {
        writer.addTensor(name, DType::F32, shape);
        outs.push_back({{}, std::vector<std::byte>(std::size_t(shape[0] * shape[1]) * sizeof(float), std::byte{0})});
    }
    HEARTH_TRY(writer.begin(to));
    for (const Out& o : outs)
        HEARTH_TRY(writer.writeTensorData(o.owned.empty() ? o.bytes : std::span<const std::byte>(o.owned)));
    return writer.finish();
}

// Replaces every F32 blk.N.ffn_down.weight (n_ff -> n_embd) with PowerInfer's neuron-major
// blk.N.ffn_down_t.weight (row i: neuron i's n_embd outputs).
inline bool transposeDown(const gguf::TensorInfo& t, TensorReplacement& r)
{
    if (!t.name.ends_with(".ffn_down.weight"))
        return true;
    const std::int64_t nFf = t.shape[0];
    const std::int64_t nEmbd = t.shape[1];
    const float* src = reinterpret_cast<const float*>(t.data);
    std::vector<float> dst(std::size_t(nFf * nEmbd));
    for (std::int64_t o = 0; o < nEmbd; ++o) {
        for (std::int64_t i = 0; i < nFf; ++i)
            dst[std::size_t(i * nEmbd + o)] = src[o * nFf + i];
    }
    r.replace = true;
    r.name = t.name.substr(0, t.name.size() - std::string_view(".weight").size()) + "_t.weight";
    r.type = DType::F32;
    r.shape = {nEmbd, nFf};
    r.bytes.resize(dst.size() * sizeof(float));
    std::memcpy(r.bytes.data(), dst.data(), r.bytes.size());
    return true;
}

// A tensor of a GGUF file, dequantized to double: rows of rowLength elements.
struct RefMatrix {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::vector<double> w;
    [[nodiscard]] const double* row(std::int64_t r) const { return w.data() + r * cols; }
};

inline RefMatrix readTensor(const gguf::GgufFile& file, const std::string& name)
{
    RefMatrix m;
    const gguf::TensorInfo* t = file.findTensor(name);
    if (!t)
        return m;
    m.cols = t->rowLength();
    m.rows = t->rows();
    m.w.resize(std::size_t(m.rows * m.cols));
    std::vector<float> row(std::size_t(m.cols));
    const std::size_t stride = rowBytes(t->type, m.cols);
    for (std::int64_t r = 0; r < m.rows; ++r) {
        cpu::dequantizeRow(t->type, t->data + std::size_t(r) * stride, row.data(), m.cols);
        std::copy(row.begin(), row.end(), m.w.begin() + r * m.cols);
    }
    return m;
}

inline std::vector<double> matVec(const RefMatrix& m, const std::vector<double>& x)
{
    std::vector<double> y(std::size_t(m.rows));
    for (std::int64_t r = 0; r < m.rows; ++r) {
        double s = 0;
        for (std::int64_t c = 0; c < m.cols; ++c)
            s += m.row(r)[c] * x[std::size_t(c)];
        y[std::size_t(r)] = s;
    }
    return y;
}

inline std::vector<double> layerNormRef(const std::vector<double>& x, const RefMatrix& w, const RefMatrix& b, double eps)
{
    const double n = double(x.size());
    double mean = 0;
    for (double v : x)
        mean += v;
    mean /= n;
    double var = 0;
    for (double v : x)
        var += (v - mean) * (v - mean);
    var /= n;
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = (x[i] - mean) / std::sqrt(var + eps) * w.w[i] + b.w[i];
    return y;
}

// softmax(q . k_j / sqrt(d)) . v_j over the cached rows, for one head.
inline std::vector<double> attendRef(const double* q, const std::vector<std::vector<double>>& ks,
                                     const std::vector<std::vector<double>>& vs, std::size_t offset, std::size_t headDim)
{
    std::vector<double> scores(ks.size());
    double top = -INFINITY;
    for (std::size_t j = 0; j < ks.size(); ++j) {
        double s = 0;
        for (std::size_t i = 0; i < headDim; ++i)
            s += q[i] * ks[j][offset + i];
        scores[j] = s / std::sqrt(double(headDim));
        top = std::max(top, scores[j]);
    }
    double sum = 0;
    for (double& s : scores)
        sum += (s = std::exp(s - top));
    std::vector<double> out(headDim, 0.0);
    for (std::size_t j = 0; j < ks.size(); ++j) {
        for (std::size_t i = 0; i < headDim; ++i)
            out[i] += scores[j] / sum * vs[j][offset + i];
    }
    return out;
}

inline double maxAbsDiff(std::span<const float> a, const std::vector<double>& b)
{
    if (a.size() != b.size())
        return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - b[i]));
    return worst;
}

inline double spread(const std::vector<double>& v)
{
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
}

inline std::vector<std::pair<std::string, std::vector<Token>>> readVocabVectors(const QString& base)
{
    QFile inp(base + QStringLiteral(".inp"));
    QFile out(base + QStringLiteral(".out"));
    std::vector<std::pair<std::string, std::vector<Token>>> vectors;
    if (!inp.open(QIODevice::ReadOnly) || !out.open(QIODevice::ReadOnly))
        return vectors;
    const std::string all = inp.readAll().toStdString();
    const std::string separator = "\n__ggml_vocab_test__\n";
    for (std::size_t pos = 0; pos < all.size();) {
        const std::size_t end = all.find(separator, pos);
        if (end == std::string::npos)
            break;
        vectors.push_back({all.substr(pos, end - pos), {}});
        pos = end + separator.size();
    }
    const QList<QByteArray> lines = out.readAll().split('\n');
    for (std::size_t i = 0; i < vectors.size() && i < std::size_t(lines.size()); ++i) {
        for (const QByteArray& id : lines[qsizetype(i)].split(' ')) {
            if (!id.trimmed().isEmpty())
                vectors[i].second.push_back(id.trimmed().toInt());
        }
    }
    return vectors;
}

// Writes the synthetic model @p o to @p path and returns the path; empty on failure, with a
// warning.
inline QString writeSynthetic(const synth::SynthOptions& o, const QString& path)
{
    const Status s = synth::writeSyntheticModel(o, path.toStdString());
    if (!s.ok()) {
        qWarning("%s", s.message().c_str());
        return {};
    }
    return path;
}

// Copies the model @p plain to @p to with the tokenizer.* metadata of @p vocabFile in place of
// its own.
inline Status withTokenizerOf(const QString& plain, const QString& to, const gguf::GgufFile& vocabFile)
{
    return rewriteGguf(
        plain.toStdString(), to.toStdString(), [](const std::string& key) { return !key.starts_with("tokenizer."); },
        [&](gguf::GgufWriter& w) {
            for (const auto& [key, value] : vocabFile.metadata()) {
                if (key.starts_with("tokenizer."))
                    w.setValue(key, value);
            }
        },
        {});
}

// How many of @p vectors (text, expected ids) @p tokenizer encodes differently; each
// mismatch is warned about.
inline int encodeMismatches(const Tokenizer& tokenizer,
                            const std::vector<std::pair<std::string, std::vector<Token>>>& vectors)
{
    int failures = 0;
    for (const auto& [text, ids] : vectors) {
        if (tokenizer.encode(text, false, false) != ids) {
            qWarning("mismatch for \"%s\"", text.c_str());
            ++failures;
        }
    }
    return failures;
}

// Prefills @p prompt in one batch (every row's logits), then decodes @p decoded one by one,
// comparing each row with @p reference's step(); returns the worst difference relative to the
// logits' spread, and the worst absolute one in @p worstAbs (left alone when the session
// fails, which returns infinity).
template <typename Reference>
double compareSteps(Session& session, Reference& reference, std::size_t vocab, const std::vector<Token>& prompt,
                    const std::vector<Token>& decoded, double& worstAbs)
{
    std::vector<float> all;
    if (!session.evaluateAll(prompt, all).ok())
        return INFINITY;
    double worstRel = 0;
    worstAbs = 0;
    auto check = [&](std::span<const float> got, const std::vector<double>& want) {
        const double diff = maxAbsDiff(got, want);
        worstAbs = std::max(worstAbs, diff);
        worstRel = std::max(worstRel, diff / spread(want));
    };
    for (std::size_t t = 0; t < prompt.size(); ++t)
        check(std::span<const float>(all).subspan(t * vocab, vocab), reference.step(prompt[t]));
    for (Token token : decoded) {
        if (!session.decode(token).ok())
            return INFINITY;
        check(session.logits(), reference.step(token));
    }
    return worstRel;
}

// Data rows of the families' quantizedStayClose tests: weight type, tolerance against the
// reference built from the file's own (dequantized) weights, and against the F32 original (both
// relative to the spread of the logits). Q8_0/Q4_0 products also quantize the activations.
inline void addQuantizedRows()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("tolerance");
    QTest::addColumn<double>("quantizationTolerance");
    QTest::newRow("f16") << int(DType::F16) << 1e-4 << 0.01;
    QTest::newRow("q8_0") << int(DType::Q8_0) << 0.02 << 0.03;
    QTest::newRow("q4_0") << int(DType::Q4_0) << 0.02 << 0.25;
}

} // namespace hearth::test
