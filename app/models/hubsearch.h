// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// HubSearch: Hugging Face search results (through HuggingFaceApi) as a list model, each result
/// classified by what Hearth can do with it: run it sparse (hot neurons on the GPU), run it
/// dense only, or not at all, with the reason in words.

#include "catalogentry.h"
#include "huggingfaceapi.h"

#include <QAbstractListModel>
#include <QList>
#include <QPointer>
#include <QtQmlIntegration>

namespace hearth::models {

struct HubClassification
{
    Q_GADGET

public:
    enum Support {
        RunsSparse, ///< PowerInfer GGUF, or predictors available for it
        DenseOnly, ///< an architecture Hearth runs, without predictors
        Unsupported, ///< another architecture, or a format with no conversion path
    };
    Q_ENUM(Support)

    Support support = Unsupported;
    QString architecture; ///< detected from tags/id, empty when unknown
    QString format; ///< "gguf", "safetensors", "pytorch" or empty
    QString predictorRepo;
    QString reason; ///< translated

    [[nodiscard]] QString supportName() const; ///< "sparse", "dense", "unsupported"
};

/// The rules, from the result's id and tags and, when known, its file list (@p files may be
/// empty: search results carry no file list; a listing refines the answer). @p catalog supplies
/// predictor repositories for known source checkpoints.
[[nodiscard]] HubClassification classifyHubModel(const HfModelSummary& model,
    const QList<HfFileEntry>& files = {}, const QList<CatalogEntry>& catalog = {});

class HubSearch : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    Q_PROPERTY(QString errorText READ errorText NOTIFY errorTextChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1, ///< "id": "owner/name"
        SupportRole, ///< "support": "sparse", "dense" or "unsupported"
        ReasonRole, ///< "reason": translated explanation
        ArchitectureRole, ///< "architecture": detected, may be empty
        FormatRole, ///< "format": gguf, safetensors, pytorch or empty
        PredictorRepoRole, ///< "predictorRepo": where predictors come from
        DownloadsRole, ///< "downloads"
        LikesRole, ///< "likes"
        RepoIdRole, ///< "repoId": the same as "id", which QML delegates cannot declare
    };
    Q_ENUM(Role)

    /// @p api is not owned; null creates one (for QML).
    explicit HubSearch(HuggingFaceApi* api = nullptr, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] bool busy() const { return m_request != 0; }
    [[nodiscard]] QString errorText() const { return m_errorText; }

    Q_INVOKABLE void search(const QString& query, int limit = 30);
    /// Replaces the results (the answer of a search, or fixtures in tests).
    void setResults(const QList<HfModelSummary>& models);
    /// Refines row @p row with its repository listing (GGUF files, activation folders).
    void setFiles(const QString& id, const QList<HfFileEntry>& files);
    [[nodiscard]] HubClassification classificationAt(int row) const;

Q_SIGNALS:
    void busyChanged();
    void errorTextChanged();

private:
    struct Row
    {
        HfModelSummary model;
        HubClassification classification;
    };

    QPointer<HuggingFaceApi> m_api;
    quint64 m_request = 0;
    QString m_errorText;
    QList<Row> m_rows;
};

} // namespace hearth::models
