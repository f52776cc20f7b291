// SPDX-License-Identifier: MIT
#include "hubsearch.h"

#include <hearth/convert.h>
#include <hearth/model.h>

#include <QHash>

namespace hearth::models {

namespace {

// Architectures the engine runs (its registry). Dense llama covers SwiGLU llamas (Llama 2/3,
// Mistral-style checkpoints tagged "llama") as well as the ReLU variants; Hugging Face's
// model_type tags ("qwen2", "qwen3") are the GGUF names of these families.
const QStringList& runnableArchitectures()
{
    static const QStringList names = [] {
        QStringList list;
        for (const hearth::ArchitectureName& a : hearth::supportedArchitectures())
            list.append(QString::fromStdString(a.name));
        return list;
    }();
    return names;
}

// The model types the converter takes (Hugging Face's tags use them as well).
const QStringList& convertibleArchitectures()
{
    static const QStringList names = [] {
        QStringList list;
        for (const std::string& type : hearth::convertibleModelTypes())
            list.append(QString::fromStdString(type));
        return list;
    }();
    return names;
}

// Hugging Face's names of families the engine runs under its own name: Mistral and Mixtral
// checkpoints are llama files once converted, the mixtures' model types lose their underscore
// (gpt-oss's becomes a hyphen), Gemma 3's text-only checkpoints say so.
QString engineArchitecture(const QString& hfName)
{
    static const QHash<QString, QString> aliases = { { QStringLiteral("mistral"), QStringLiteral("llama") },
        { QStringLiteral("mixtral"), QStringLiteral("llama") }, { QStringLiteral("qwen3_moe"), QStringLiteral("qwen3moe") },
        { QStringLiteral("qwen2_moe"), QStringLiteral("qwen2moe") }, { QStringLiteral("gpt_oss"), QStringLiteral("gpt-oss") },
        { QStringLiteral("gemma3_text"), QStringLiteral("gemma3") } };
    return aliases.value(hfName, hfName);
}

// How repository names spell the families (a GGUF repository often has no architecture tag):
// "gemma-3-4b-it-GGUF", "Phi-4-mini-instruct-GGUF" (Phi-4 is a phi3 model).
const QList<std::pair<QString, QString>>& spelledArchitectures()
{
    static const QList<std::pair<QString, QString>> names = { { QStringLiteral("qwen3-30b-a3b"), QStringLiteral("qwen3_moe") },
        { QStringLiteral("gemma-3"), QStringLiteral("gemma3") }, { QStringLiteral("gemma-2"), QStringLiteral("gemma2") },
        { QStringLiteral("phi-4"), QStringLiteral("phi3") }, { QStringLiteral("phi-3"), QStringLiteral("phi3") },
        { QStringLiteral("mixtral"), QStringLiteral("mixtral") }, { QStringLiteral("mistral"), QStringLiteral("mistral") },
        { QStringLiteral("gpt-oss"), QStringLiteral("gpt_oss") } };
    return names;
}

// Other architectures users meet in search results, so the reason can name them.
const QStringList& knownOtherArchitectures()
{
    static const QStringList names = { QStringLiteral("qwen"), QStringLiteral("gemma"),
        QStringLiteral("phi"), QStringLiteral("gpt2"), QStringLiteral("gpt_neox"), QStringLiteral("bloom"),
        QStringLiteral("mpt"), QStringLiteral("t5"), QStringLiteral("bert"), QStringLiteral("stablelm"),
        QStringLiteral("deepseek") };
    return names;
}

QString lowerName(const QString& id)
{
    return id.section(QLatin1Char('/'), -1).toLower();
}

QString detectArchitecture(const HfModelSummary& model)
{
    // Tags name the architecture exactly ("llama", "falcon", "opt"); the id is a fallback.
    for (const QString& tag : model.tags) {
        const QString t = tag.toLower();
        if (runnableArchitectures().contains(engineArchitecture(t)) || knownOtherArchitectures().contains(t))
            return t;
    }
    const QString name = lowerName(model.id);
    for (const auto& [spelling, arch] : spelledArchitectures()) {
        if (name.contains(spelling))
            return arch;
    }
    for (const QString& arch : runnableArchitectures()) {
        if (name.contains(arch))
            return arch;
    }
    for (const QString& arch : knownOtherArchitectures()) {
        if (name.contains(arch))
            return arch;
    }
    return {};
}

QString detectFormat(const HfModelSummary& model, const QList<HfFileEntry>& files)
{
    bool gguf = model.tags.contains(QStringLiteral("gguf"), Qt::CaseInsensitive)
        || lowerName(model.id).contains(QLatin1String("gguf"));
    bool safetensors = model.tags.contains(QStringLiteral("safetensors"), Qt::CaseInsensitive);
    bool pytorch = model.tags.contains(QStringLiteral("pytorch"), Qt::CaseInsensitive);
    for (const HfFileEntry& f : files) {
        const QString path = f.path.toLower();
        gguf = gguf || path.endsWith(QLatin1String(".gguf"));
        safetensors = safetensors || path.endsWith(QLatin1String(".safetensors"));
        pytorch = pytorch || path.endsWith(QLatin1String(".bin")) || path.endsWith(QLatin1String(".pt"));
    }
    if (gguf)
        return QStringLiteral("gguf");
    if (safetensors)
        return QStringLiteral("safetensors");
    if (pytorch)
        return QStringLiteral("pytorch");
    return {};
}

} // namespace

QString HubClassification::supportName() const
{
    switch (support) {
    case RunsSparse:
        return QStringLiteral("sparse");
    case DenseOnly:
        return QStringLiteral("dense");
    case Unsupported:
        break;
    }
    return QStringLiteral("unsupported");
}

HubClassification classifyHubModel(
    const HfModelSummary& model, const QList<HfFileEntry>& files, const QList<CatalogEntry>& catalog)
{
    HubClassification c;
    c.architecture = detectArchitecture(model);
    c.format = detectFormat(model, files);

    const QString name = lowerName(model.id);
    bool powerInfer = name.contains(QLatin1String("powerinfer"))
        || model.tags.contains(QStringLiteral("powerinfer"), Qt::CaseInsensitive);
    bool activationFolder = false;
    for (const HfFileEntry& f : files) {
        const QString path = f.path.toLower();
        powerInfer = powerInfer || path.endsWith(QLatin1String(".powerinfer.gguf"));
        activationFolder = activationFolder || path.startsWith(QLatin1String("activation/"));
    }
    for (const CatalogEntry& entry : catalog) {
        if (entry.repo.compare(model.id, Qt::CaseInsensitive) == 0 && entry.sparse) {
            powerInfer = powerInfer || entry.format == QLatin1String("gguf");
            if (!entry.predictorRepo.isEmpty())
                c.predictorRepo = entry.predictorRepo;
            if (c.architecture.isEmpty())
                c.architecture = entry.architecture;
        }
        if (entry.sourceRepo.compare(model.id, Qt::CaseInsensitive) == 0 && !entry.predictorRepo.isEmpty())
            c.predictorRepo = entry.predictorRepo;
    }
    if (model.id.endsWith(QLatin1String("-Predictor"), Qt::CaseInsensitive)) {
        c.support = HubClassification::Unsupported;
        c.reason = HubSearch::tr("Predictor weights only: download the model they belong to.");
        return c;
    }

    const bool runnable = runnableArchitectures().contains(engineArchitecture(c.architecture));
    if (c.format == QLatin1String("gguf") && (powerInfer || activationFolder)) {
        c.support = HubClassification::RunsSparse;
        c.reason
            = HubSearch::tr("PowerInfer GGUF with predictors: hot neurons on the GPU, the rest on the CPU.");
        return c;
    }
    if (!c.predictorRepo.isEmpty() && (runnable || c.architecture.isEmpty())) {
        c.support = HubClassification::RunsSparse;
        c.reason = HubSearch::tr("Converted to GGUF on this computer, with the predictors from %1.")
                       .arg(c.predictorRepo);
        return c;
    }
    if (c.architecture.isEmpty()) {
        c.support = HubClassification::Unsupported;
        c.reason = HubSearch::tr("The architecture could not be determined from the repository.");
        return c;
    }
    if (!runnable) {
        c.support = HubClassification::Unsupported;
        c.reason = HubSearch::tr("The %1 architecture is not supported.").arg(c.architecture);
        return c;
    }
    if (c.format == QLatin1String("gguf")) {
        c.support = HubClassification::DenseOnly;
        c.reason
            = HubSearch::tr("GGUF without predictors: runs dense (whole layers on the GPU as they fit).");
        return c;
    }
    if (c.format == QLatin1String("safetensors") || c.format == QLatin1String("pytorch")) {
        if (!convertibleArchitectures().contains(c.architecture)) {
            c.support = HubClassification::Unsupported;
            c.reason = HubSearch::tr("Hearth runs %1 models from GGUF files but cannot convert this checkpoint: "
                                     "look for a GGUF version.")
                           .arg(c.architecture);
            return c;
        }
        c.support = HubClassification::DenseOnly;
        c.reason = HubSearch::tr("No predictors: converted to GGUF on this computer and run dense.");
        return c;
    }
    c.support = HubClassification::Unsupported;
    c.reason = HubSearch::tr("No GGUF, safetensors or PyTorch weights found.");
    return c;
}

HubSearch::HubSearch(HuggingFaceApi* api, QObject* parent)
    : QAbstractListModel(parent)
    , m_api(api ? api : new HuggingFaceApi(nullptr, this))
{
    connect(m_api, &HuggingFaceApi::searchFinished, this,
        [this](quint64 id, const QList<HfModelSummary>& models) {
            if (id != m_request)
                return;
            m_request = 0;
            setResults(models);
            Q_EMIT busyChanged();
        });
    connect(m_api, &HuggingFaceApi::requestFailed, this, [this](quint64 id, const QString& text, int) {
        if (id != m_request)
            return;
        m_request = 0;
        m_errorText = text;
        Q_EMIT errorTextChanged();
        Q_EMIT busyChanged();
    });
}

void HubSearch::search(const QString& query, int limit)
{
    if (!m_errorText.isEmpty()) {
        m_errorText.clear();
        Q_EMIT errorTextChanged();
    }
    m_request = m_api->search(query, limit);
    Q_EMIT busyChanged();
}

void HubSearch::setResults(const QList<HfModelSummary>& models)
{
    beginResetModel();
    m_rows.clear();
    for (const HfModelSummary& model : models)
        m_rows.append({ model, classifyHubModel(model, {}, builtinCatalog()) });
    endResetModel();
}

void HubSearch::setFiles(const QString& id, const QList<HfFileEntry>& files)
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows[row].model.id == id) {
            m_rows[row].classification = classifyHubModel(m_rows[row].model, files, builtinCatalog());
            Q_EMIT dataChanged(index(row), index(row));
        }
    }
}

HubClassification HubSearch::classificationAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).classification : HubClassification {};
}

int HubSearch::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

QVariant HubSearch::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row& r = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case IdRole:
    case RepoIdRole:
        return r.model.id;
    case SupportRole:
        return r.classification.supportName();
    case ReasonRole:
        return r.classification.reason;
    case ArchitectureRole:
        return r.classification.architecture;
    case FormatRole:
        return r.classification.format;
    case PredictorRepoRole:
        return r.classification.predictorRepo;
    case DownloadsRole:
        return r.model.downloads;
    case LikesRole:
        return r.model.likes;
    default:
        return {};
    }
}

QHash<int, QByteArray> HubSearch::roleNames() const
{
    return { { IdRole, "id" }, { SupportRole, "support" }, { ReasonRole, "reason" },
        { ArchitectureRole, "architecture" }, { FormatRole, "format" },
        { PredictorRepoRole, "predictorRepo" }, { DownloadsRole, "downloads" }, { LikesRole, "likes" },
        { RepoIdRole, "repoId" } };
}

} // namespace hearth::models
