// SPDX-License-Identifier: MIT
// ConversionJob: Hugging Face folders, PowerInfer predictors and activation statistics written
// here are converted on the job's thread; the result equals what the public engine API writes
// directly, quantized results stay close, and every way of failing (cancel, a full disk, a
// missing config.json, an unsupported architecture, hostile or truncated .pt files, a model that
// computes garbage) leaves no file behind and the destination as it was.

#include "../engine/hf_folder_writer.h"
#include "../engine/logits_test_support.h"
#include "conversionjob.h"
#include "synth/model_shape.h"
#include "synth/synthetic_model.h"

#include <hearth/convert.h>
#include <hearth/model.h>
#include <hearth/session.h>

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <cmath>
#include <limits>

using namespace hearth;
using namespace hearth::test;
using hearth::models::ConversionJob;

namespace {

constexpr int kTimeoutMs = 120000;

std::vector<float> logitsOf(const QString& path)
{
    return promptLogits(QFile::encodeName(path).toStdString(), {1, 277, 270, 263}, 32, /*vramBudgetGiB=*/0);
}

QStringList filesIn(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

QByteArray contents(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Runs @p job to its end; false when it did not start or did not finish in time.
bool runToEnd(ConversionJob& job)
{
    QSignalSpy finished(&job, &ConversionJob::finished);
    if (!job.start())
        return finished.count() == 1;
    return finished.wait(kTimeoutMs) || finished.count() == 1;
}

} // namespace

class TestConversionJob : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    HfShape m_shape;
    HfWeights m_weights;
    QString m_hf;
    QString m_predictors;
    QString m_activations;
    int m_outputs = 0;

    // A fresh, empty output folder.
    QString outDir()
    {
        const QString dir = m_dir.filePath(QStringLiteral("out%1").arg(++m_outputs));
        QDir().mkpath(dir);
        return dir;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Big enough that a run takes a while (cancel tests), small enough to be quick.
        m_shape.embd = 128;
        m_shape.ff = 512;
        m_shape.layers = 4;
        m_shape.heads = 4;
        m_shape.kvHeads = 2;
        m_weights = makeHfWeights(m_shape, 99);
        m_hf = m_dir.filePath(QStringLiteral("hf"));
        m_predictors = m_dir.filePath(QStringLiteral("predictors"));
        m_activations = m_dir.filePath(QStringLiteral("activations"));
        QVERIFY(writeHfModelFolder(m_hf, m_shape, m_weights));
        writeHfPredictorFolder(m_predictors, m_shape);
        writeHfActivationFolder(m_activations, m_shape);
    }

    void suggestsDestinationBesideSource()
    {
        ConversionJob job;
        job.setSource(m_hf);
        job.setOutputType(QStringLiteral("q4_0"));
        QCOMPARE(job.outputType(), QStringLiteral("Q4_0"));
        QCOMPARE(job.suggestedDestination(), m_dir.filePath(QStringLiteral("hf-q4_0.gguf")));
        job.setOutputType(QStringLiteral("Q5_K")); // not offered: ignored
        QCOMPARE(job.outputType(), QStringLiteral("Q4_0"));
        QCOMPARE(job.outputTypes(), (QStringList{QStringLiteral("F16"), QStringLiteral("Q8_0"), QStringLiteral("Q4_0")}));
        // A GGUF file re-encodes with llama-quantize's presets, the usual one first.
        job.setSource(m_dir.filePath(QStringLiteral("model.gguf")));
        QCOMPARE(job.outputTypes(), (QStringList{QStringLiteral("Q4_K_M"), QStringLiteral("Q5_K_M"), QStringLiteral("Q6_K"),
                                                 QStringLiteral("Q8_0"), QStringLiteral("Q4_0"), QStringLiteral("IQ4_XS"), QStringLiteral("Sparse")}));
        QCOMPARE(job.outputType(), QStringLiteral("Q4_0")); // offered for both
        job.setOutputType(QStringLiteral("q4_k_m"));
        QCOMPARE(job.outputType(), QStringLiteral("Q4_K_M"));
        QCOMPARE(job.suggestedDestination(), m_dir.filePath(QStringLiteral("model-q4_k_m.gguf")));
        job.setSource(m_hf); // a preset means nothing to a folder
        QCOMPARE(job.outputType(), QStringLiteral("F16"));
        job.setSource(m_dir.filePath(QStringLiteral("model.gguf")));
        QCOMPARE(job.outputType(), QStringLiteral("Q4_K_M"));
        QCOMPARE(job.pathFromUrl(QUrl::fromLocalFile(m_hf)), QDir::toNativeSeparators(m_hf));
        QCOMPARE(job.urlFromPath(m_hf), QUrl::fromLocalFile(m_hf));
        QCOMPARE(job.urlFromPath(QString()), QUrl());
        QCOMPARE(ConversionJob::temporaryPathFor(QStringLiteral("/a/b/m.gguf")),
                 QStringLiteral("/a/b/.m.gguf.hearth-partial"));
    }

    // A sparse F16 conversion with statistics: the same bytes the public API writes directly,
    // made on another thread, with progress and phases, and nothing else left in the folder.
    void convertsSparseModel()
    {
        const QString dir = outDir();
        ConversionJob job;
        job.setSource(m_hf);
        job.setPredictorFolder(m_predictors);
        job.setActivationFolder(m_activations);
        job.setOutputType(QStringLiteral("F16"));
        job.setDestination(dir + QStringLiteral("/sparse.gguf"));
        std::atomic<bool> onGuiThread{false};
        job.setWorkerObserver([&onGuiThread](double) {
            if (QThread::currentThread() == qApp->thread())
                onGuiThread = true;
        });
        QStringList phases;
        double lastProgress = 0;
        bool monotonic = true;
        connect(&job, &ConversionJob::progressChanged, this, [&]() {
            if (!job.phase().isEmpty() && (phases.isEmpty() || phases.back() != job.phase()))
                phases << job.phase();
            monotonic = monotonic && job.progress() >= lastProgress;
            lastProgress = job.progress();
        });
        QSignalSpy ready(&job, &ConversionJob::modelReady);
        QVERIFY(runToEnd(job));
        QVERIFY2(job.state() == ConversionJob::Succeeded, qPrintable(job.message()));
        QVERIFY(!onGuiThread);
        QVERIFY(monotonic);
        QCOMPARE(job.progress(), 1.0);
        QVERIFY(job.estimatedBytes() > 0);
        QCOMPARE(ready.count(), 1);
        QCOMPARE(ready.at(0).at(0).toString(), job.destination());
        QCOMPARE(job.outputPath(), job.destination());
        QVERIFY(job.message().contains(QStringLiteral("sparse.gguf")));
        qInfo() << "phases:" << phases;
        QVERIFY(phases.size() >= 3);
        QVERIFY(phases.contains(QStringLiteral("Checking that the new model loads and answers")));
        QCOMPARE(filesIn(dir), (QStringList{QStringLiteral("sparse.gguf"), QStringLiteral("sparse.hearth-stats.gguf")}));
        QVERIFY(job.estimatedBytes() >= double(QFileInfo(job.destination()).size()));

        auto model = Model::load(QFile::encodeName(job.destination()).toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QVERIFY((*model)->info().sparse);

        // The same conversion through the public API, without the job: identical logits.
        ConvertParams direct;
        direct.modelFolder = m_hf.toStdString();
        direct.predictorFolder = m_predictors.toStdString();
        direct.output = m_dir.filePath(QStringLiteral("direct-sparse.gguf")).toStdString();
        direct.type = WeightType::F16;
        auto written = convertModel(direct);
        QVERIFY2(written.ok(), written.message().c_str());
        const auto expected = logitsOf(QString::fromStdString(direct.output));
        QVERIFY(!expected.empty());
        QCOMPARE(logitsOf(job.destination()), expected);
    }

    void quantizesGgufFile_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<double>("bound");
        QTest::newRow("q8_0") << QStringLiteral("Q8_0") << 6e-2;
        QTest::newRow("q4_0") << QStringLiteral("Q4_0") << 0.5;
    }

    void quantizesGgufFile()
    {
        QFETCH(QString, type);
        QFETCH(double, bound);
        const QString dir = outDir();
        ConversionJob f16;
        f16.setSource(m_hf);
        f16.setDestination(dir + QStringLiteral("/dense-f16.gguf"));
        QVERIFY(runToEnd(f16));
        QVERIFY2(f16.state() == ConversionJob::Succeeded, qPrintable(f16.message()));

        ConversionJob job;
        job.setSource(f16.destination());
        job.setOutputType(type);
        QCOMPARE(job.suggestedDestination(), dir + QStringLiteral("/dense-f16-") + type.toLower() + QStringLiteral(".gguf"));
        job.setDestination(job.suggestedDestination());
        QVERIFY(runToEnd(job));
        QVERIFY2(job.state() == ConversionJob::Succeeded, qPrintable(job.message()));
        auto model = Model::load(QFile::encodeName(job.destination()).toStdString());
        QVERIFY2(model.ok(), model.message().c_str());
        QCOMPARE(QString::fromStdString((*model)->info().weightType), type);
        const double error = relativeRms(logitsOf(job.destination()), logitsOf(f16.destination()));
        qInfo("%s against F16: relative RMS error of logits %.3g", qPrintable(type), error);
        QVERIFY2(error < bound, qPrintable(QString::number(error)));
        QCOMPARE(filesIn(dir).size(), 2);

        // Converting straight from the folder to the type works as well.
        ConversionJob straight;
        straight.setSource(m_hf);
        straight.setOutputType(type);
        straight.setDestination(dir + QStringLiteral("/straight.gguf"));
        QVERIFY(runToEnd(straight));
        QVERIFY2(straight.state() == ConversionJob::Succeeded, qPrintable(straight.message()));
    }

    // A dense ReLU GGUF file made sparse: predictors fitted, the statistics beside it, checked
    // before it takes its name; a SwiGLU file is refused with the reason, a cancel keeps nothing.
    void makesGgufModelSparse()
    {
        const QString dir = outDir();
        const QString dense = dir + QStringLiteral("/relu.gguf");
        synth::SynthOptions options;
        options.shape = *synth::shapeByName("tiny-256");
        options.shape.layerCount = 2;
        options.type = DType::F32;
        options.ffnActivation = "reglu";
        options.activationSparsity = 0.8;
        QVERIFY(synth::writeSyntheticModel(options, dense.toStdString()).ok());

        ConversionJob job;
        job.setSource(dense);
        QVERIFY(job.outputTypes().contains(QStringLiteral("Sparse")));
        job.setOutputType(QStringLiteral("Sparse"));
        QCOMPARE(job.suggestedDestination(), dir + QStringLiteral("/relu-sparse.gguf"));
        job.setDestination(job.suggestedDestination());
        QStringList phases;
        connect(&job, &ConversionJob::progressChanged, this, [&] {
            if (!job.phase().isEmpty() && !phases.contains(job.phase()))
                phases.append(job.phase());
        });
        QSignalSpy ready(&job, &ConversionJob::modelReady);
        QVERIFY(runToEnd(job));
        QVERIFY2(job.state() == ConversionJob::Succeeded, qPrintable(job.message()));
        QCOMPARE(ready.count(), 1);
        QVERIFY2(phases.contains(QStringLiteral("Making the model sparse and checking it")), qPrintable(phases.join(u'|')));
        // The result says what the predictors do, in numbers.
        QVERIFY2(job.message().contains(QStringLiteral("relu-sparse.gguf")), qPrintable(job.message()));
        QVERIFY2(job.message().contains(QStringLiteral("expected decode speed-up")), qPrintable(job.message()));
        QVERIFY2(job.message().contains(QStringLiteral("perplexity")), qPrintable(job.message()));
        QCOMPARE(filesIn(dir), (QStringList{QStringLiteral("relu-sparse.gguf"), QStringLiteral("relu-sparse.hearth-stats.gguf"),
                                            QStringLiteral("relu.gguf")}));
        const Status again = checkSparsifiable(QFile::encodeName(job.destination()).toStdString());
        QCOMPARE(again.code(), ErrorCode::InvalidArgument); // sparse already

        // Cancelled while fitting: nothing new.
        ConversionJob cancelled;
        cancelled.setSource(dense);
        cancelled.setOutputType(QStringLiteral("Sparse"));
        cancelled.setDestination(dir + QStringLiteral("/cancelled.gguf"));
        cancelled.setWorkerObserver([&cancelled](double fraction) {
            if (fraction > 0.4)
                cancelled.cancel();
        });
        QVERIFY(runToEnd(cancelled));
        QCOMPARE(cancelled.state(), ConversionJob::Cancelled);
        QCOMPARE(filesIn(dir).size(), 3);

        // A calibration text that is not there stops the run before it starts.
        ConversionJob missing;
        missing.setSource(dense);
        missing.setOutputType(QStringLiteral("Sparse"));
        missing.setCalibrationFile(dir + QStringLiteral("/nothing.txt"));
        missing.setDestination(dir + QStringLiteral("/missing.gguf"));
        QVERIFY(!missing.start());
        QCOMPARE(missing.state(), ConversionJob::Failed);
        QVERIFY(missing.message().contains(QStringLiteral("nothing.txt")));

        // SwiGLU: magnitude thresholds, the neurons' statistics beside them (for the GPU's
        // placement), and the numbers in the message.
        const QString swiglu = dir + QStringLiteral("/swiglu.gguf");
        options.ffnActivation = "swiglu";
        options.activationSparsity = 0;
        QVERIFY(synth::writeSyntheticModel(options, swiglu.toStdString()).ok());
        ConversionJob magnitude;
        magnitude.setSource(swiglu);
        QVERIFY(magnitude.outputTypes().contains(QStringLiteral("Sparse")));
        magnitude.setOutputType(QStringLiteral("Sparse"));
        magnitude.setDestination(magnitude.suggestedDestination());
        QVERIFY(runToEnd(magnitude));
        QVERIFY2(magnitude.state() == ConversionJob::Succeeded, qPrintable(magnitude.message()));
        QVERIFY2(magnitude.message().contains(QStringLiteral("of the neurons' outputs")), qPrintable(magnitude.message()));
        QCOMPARE(filesIn(dir).size(), 6);
        QVERIFY(filesIn(dir).contains(QStringLiteral("swiglu-sparse.gguf")));
        QVERIFY(filesIn(dir).contains(QStringLiteral("swiglu-sparse.hearth-stats.gguf")));

        // GeGLU (Gemma): refused, with the reason.
        const QString geglu = dir + QStringLiteral("/geglu.gguf");
        synth::SynthOptions gemma;
        gemma.architecture = "gemma2";
        gemma.shape = *synth::shapeByName("gemma2-tiny");
        gemma.type = DType::F32;
        gemma.ffnActivation = "geglu";
        QVERIFY(synth::writeSyntheticModel(gemma, geglu.toStdString()).ok());
        ConversionJob refused;
        refused.setSource(geglu);
        refused.setOutputType(QStringLiteral("Sparse"));
        refused.setDestination(dir + QStringLiteral("/refused.gguf"));
        QVERIFY(runToEnd(refused));
        QCOMPARE(refused.state(), ConversionJob::Failed);
        QVERIFY2(refused.message().contains(QStringLiteral("cannot be made sparse")), qPrintable(refused.message()));
        QCOMPARE(filesIn(dir).size(), 7);
    }

    void cancelLeavesNothing_data()
    {
        QTest::addColumn<double>("at");
        QTest::newRow("at once") << -1.0;
        QTest::newRow("while writing") << 0.3;
        QTest::newRow("while checking") << 0.9;
    }

    void cancelLeavesNothing()
    {
        QFETCH(double, at);
        const QString dir = outDir();
        ConversionJob job;
        job.setSource(m_hf);
        job.setPredictorFolder(m_predictors);
        job.setActivationFolder(m_activations);
        job.setDestination(dir + QStringLiteral("/m.gguf"));
        double cancelledAt = -1;
        job.setWorkerObserver([&job, &cancelledAt, at](double fraction) {
            if (at >= 0 && fraction >= at && cancelledAt < 0) {
                cancelledAt = fraction;
                job.cancel(); // from the worker thread: cancel() is thread-safe
            }
        });
        QSignalSpy finished(&job, &ConversionJob::finished);
        QSignalSpy ready(&job, &ConversionJob::modelReady);
        QVERIFY(job.start());
        QVERIFY(job.running());
        QVERIFY(!job.start()); // one run at a time
        if (at < 0)
            job.cancel();
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(job.state(), ConversionJob::Cancelled);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(ready.count(), 0);
        QVERIFY(!job.message().isEmpty());
        QVERIFY(at < 0 || cancelledAt >= at);
        QCOMPARE(filesIn(dir), QStringList());

        // The job can run again afterwards.
        job.setWorkerObserver({});
        QVERIFY(runToEnd(job));
        QVERIFY2(job.state() == ConversionJob::Succeeded, qPrintable(job.message()));
    }

    void refusesWhenTheDiskIsTooSmall()
    {
        const QString dir = outDir();
        ConversionJob job;
        job.setSource(m_hf);
        job.setDestination(dir + QStringLiteral("/m.gguf"));
        QString probed;
        job.setFreeSpaceProbe([&probed](const QString& folder) {
            probed = folder;
            return qint64(100 * 1024);
        });
        double furthest = 0;
        job.setWorkerObserver([&furthest](double f) { furthest = std::max(furthest, f); });
        QVERIFY(runToEnd(job));
        QCOMPARE(job.state(), ConversionJob::Failed);
        QVERIFY2(job.message().contains(QStringLiteral("disk space")), qPrintable(job.message()));
        QCOMPARE(QDir(probed), QDir(dir));
        QVERIFY(furthest < 0.1); // refused before writing
        QCOMPARE(filesIn(dir), QStringList());

        // Enough room: the same job goes through.
        job.setFreeSpaceProbe([](const QString&) { return qint64(1) << 40; });
        QVERIFY(runToEnd(job));
        QVERIFY2(job.state() == ConversionJob::Succeeded, qPrintable(job.message()));
    }

    void rejectsBrokenInputs_data()
    {
        QTest::addColumn<QString>("breakage");
        QTest::addColumn<QString>("mentions");
        QTest::addColumn<bool>("atOnce"); // refused by start() itself
        QTest::newRow("no config.json") << QStringLiteral("no-config") << QStringLiteral("config.json") << true;
        QTest::newRow("not a folder") << QStringLiteral("nothing") << QStringLiteral("neither") << true;
        QTest::newRow("unsupported architecture") << QStringLiteral("gpt2") << QStringLiteral("cannot be converted")
                                                  << false;
        QTest::newRow("hostile predictor") << QStringLiteral("hostile") << QStringLiteral("unsafe: ") << false;
        QTest::newRow("truncated predictor") << QStringLiteral("truncated") << QStringLiteral("model_1.pt") << false;
        QTest::newRow("truncated weights") << QStringLiteral("truncated-weights") << QStringLiteral("damaged")
                                           << false;
        QTest::newRow("non-finite logits") << QStringLiteral("infinite") << QStringLiteral("failed its check")
                                           << false;
    }

    void rejectsBrokenInputs()
    {
        QFETCH(QString, breakage);
        QFETCH(QString, mentions);
        QFETCH(bool, atOnce);
        const QString root = m_dir.filePath(QStringLiteral("broken-") + breakage);
        const QString hf = root + QStringLiteral("/hf");
        HfShape shape = m_shape;
        HfWeights weights = m_weights;
        if (breakage == QStringLiteral("gpt2")) {
            shape.architecture = QStringLiteral("GPT2LMHeadModel");
            shape.modelType = QStringLiteral("gpt2");
        }
        if (breakage == QStringLiteral("infinite"))
            weights["lm_head.weight"].values[5] = std::numeric_limits<float>::infinity();
        if (breakage != QStringLiteral("nothing"))
            QVERIFY(writeHfModelFolder(hf, shape, weights));
        QString predictors;
        if (breakage == QStringLiteral("no-config")) {
            QVERIFY(QFile::remove(hf + QStringLiteral("/config.json")));
        } else if (breakage == QStringLiteral("truncated-weights")) {
            QFile f(hf + QStringLiteral("/model.safetensors"));
            QVERIFY(f.resize(f.size() - 4096));
        } else if (breakage == QStringLiteral("hostile") || breakage == QStringLiteral("truncated")) {
            predictors = root + QStringLiteral("/predictors");
            writeHfPredictorFolder(predictors, m_shape);
            const QString file = predictors + QStringLiteral("/model_1.pt");
            if (breakage == QStringLiteral("truncated")) {
                QFile f(file);
                QVERIFY(f.resize(f.size() / 2));
            } else {
                PickleWriter p;
                p.proto(2).global("os", "system").mark().str("touch " + (root + QStringLiteral("/pwned")).toStdString());
                p.tuple().reduce().stop();
                QVERIFY(writeFixtureFile(file, writeZip({{"archive/data.pkl", p.bytes()},
                                                         {"archive/version", Bytes{std::byte{'3'}, std::byte{'\n'}}}})));
            }
        }

        // The destination exists and may be replaced: a failure must leave it as it was.
        const QString dir = outDir();
        const QString destination = dir + QStringLiteral("/m.gguf");
        QVERIFY(writeFixtureFile(destination, QByteArray("the user's old model")));
        ConversionJob job;
        job.setSource(hf);
        job.setPredictorFolder(predictors);
        job.setDestination(destination);
        job.setAllowReplace(true);
        QSignalSpy finished(&job, &ConversionJob::finished);
        QCOMPARE(job.start(), !atOnce);
        QVERIFY(finished.count() == 1 || finished.wait(kTimeoutMs));
        qInfo("%s: %s", qPrintable(breakage), qPrintable(job.message()));
        QCOMPARE(job.state(), ConversionJob::Failed);
        QVERIFY2(job.message().contains(mentions), qPrintable(job.message()));
        QCOMPARE(filesIn(dir), QStringList{QStringLiteral("m.gguf")});
        QCOMPARE(contents(destination), QByteArray("the user's old model"));
        QVERIFY(!QFileInfo::exists(root + QStringLiteral("/pwned")));
    }

    // An error belongs to the inputs that caused it: changing them clears it.
    void oldErrorGoesWithNewInputs()
    {
        ConversionJob job;
        job.setSource(m_dir.filePath(QStringLiteral("no-such-folder")));
        job.setDestination(outDir() + QStringLiteral("/x.gguf"));
        job.start();
        QTRY_VERIFY_WITH_TIMEOUT(!job.running(), 30000);
        QCOMPARE(job.state(), ConversionJob::Failed);
        QVERIFY(!job.message().isEmpty());
        QSignalSpy changed(&job, &ConversionJob::stateChanged);
        job.setSource(m_hf);
        QCOMPARE(job.state(), ConversionJob::Idle);
        QVERIFY(job.message().isEmpty());
        QCOMPARE(changed.size(), 1);
    }

    void neverReplacesSilently()
    {
        const QString dir = outDir();
        const QString destination = dir + QStringLiteral("/m.gguf");
        QVERIFY(writeFixtureFile(destination, QByteArray("old")));
        ConversionJob job;
        job.setSource(m_hf);
        job.setDestination(destination);
        QVERIFY(job.destinationExists());
        QSignalSpy finished(&job, &ConversionJob::finished);
        QVERIFY(!job.start());
        QCOMPARE(finished.count(), 1);
        QCOMPARE(job.state(), ConversionJob::Failed);
        QVERIFY2(job.message().contains(QStringLiteral("already exists")), qPrintable(job.message()));
        QCOMPARE(contents(destination), QByteArray("old"));

        // An existing statistics file counts as well.
        const QString other = dir + QStringLiteral("/n.gguf");
        QVERIFY(writeFixtureFile(dir + QStringLiteral("/n.hearth-stats.gguf"), QByteArray("stats")));
        job.setDestination(other);
        job.setActivationFolder(m_activations);
        QVERIFY(!job.start());
        QVERIFY(!QFileInfo::exists(other));

        // Once the user allows it, the file is replaced.
        job.setActivationFolder({});
        job.setDestination(destination);
        job.setAllowReplace(true);
        QVERIFY(runToEnd(job));
        QVERIFY2(job.state() == ConversionJob::Succeeded, qPrintable(job.message()));
        QVERIFY(QFileInfo(destination).size() > 1000);
        QVERIFY(!QFileInfo::exists(ConversionJob::temporaryPathFor(destination)));
    }

    void destroyingARunningJobCancelsIt()
    {
        const QString dir = outDir();
        {
            ConversionJob job;
            job.setSource(m_hf);
            job.setDestination(dir + QStringLiteral("/m.gguf"));
            QVERIFY(job.start());
        }
        QCoreApplication::processEvents();
        QCOMPARE(filesIn(dir), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestConversionJob)
#include "tst_conversion_job.moc"
