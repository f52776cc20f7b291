// SPDX-License-Identifier: MIT
// How much memory the weights' packed copies may take (core/available_memory.h): /proc/meminfo's
// MemAvailable, and a memory cgroup's room (v2 and v1, a parent's lower limit included), read
// from a folder laid out as / is.

#include "core/available_memory.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstdint>

using namespace hearth;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;

} // namespace

class TestAvailableMemory : public QObject {
    Q_OBJECT

private:
    // A fresh root with @p files (path relative to the root, contents).
    static std::string root(QTemporaryDir& dir, const QList<QPair<QString, QByteArray>>& files)
    {
        for (const auto& [path, contents] : files) {
            const QString full = dir.filePath(path);
            QDir().mkpath(QFileInfo(full).path());
            QFile f(full);
            if (!f.open(QIODevice::WriteOnly) || f.write(contents) != contents.size())
                qFatal("cannot write %s", qPrintable(full));
        }
        return dir.path().toStdString();
    }

private slots:
    void thisMachineSaysSomething()
    {
#if defined(__linux__)
        QVERIFY(availableMemoryBytes() > 0);
#else
        QSKIP("Linux only");
#endif
    }

    void memAvailableOutsideAGroup()
    {
        QTemporaryDir dir;
        const std::string r = root(dir, {{"proc/meminfo", "MemTotal:       8000000 kB\nMemAvailable:    2048000 kB\n"},
                                         {"proc/self/cgroup", "0::/\n"}});
        QCOMPARE(availableMemoryBytes(r), std::uint64_t(2048000) * 1024);
    }

    // cgroup v2: the limit less what the group holds beyond its file pages; a parent's lower
    // limit counts; "max" is no limit.
    void cgroupV2()
    {
        QTemporaryDir dir;
        const std::string r = root(dir, {{"proc/meminfo", "MemAvailable:   20000000 kB\n"},
                                         {"proc/self/cgroup", "0::/user/app\n"},
                                         {"sys/fs/cgroup/user/app/memory.max", "max\n"},
                                         {"sys/fs/cgroup/user/memory.max", QByteArray::number(1024 * kMiB) + "\n"},
                                         {"sys/fs/cgroup/user/app/memory.current", QByteArray::number(700 * kMiB) + "\n"},
                                         {"sys/fs/cgroup/user/app/memory.stat",
                                          "anon 1\nfile " + QByteArray::number(300 * kMiB) + "\nkernel 2\n"}});
        QCOMPARE(availableMemoryBytes(r), 1024 * kMiB - 400 * kMiB);
    }

    // cgroup v1: hierarchical_memory_limit when the file has it; a limit near 2^63 is none.
    void cgroupV1()
    {
        QTemporaryDir dir;
        const std::string r = root(dir, {{"proc/meminfo", "MemAvailable:   20000000 kB\n"},
                                         {"proc/self/cgroup", "5:cpu:/x\n4:memory:/box\n"},
                                         {"sys/fs/cgroup/memory/box/memory.limit_in_bytes", "9223372036854771712\n"},
                                         {"sys/fs/cgroup/memory/box/memory.usage_in_bytes", QByteArray::number(600 * kMiB)},
                                         {"sys/fs/cgroup/memory/box/memory.stat",
                                          "cache 5\ntotal_cache " + QByteArray::number(100 * kMiB)
                                              + "\nhierarchical_memory_limit " + QByteArray::number(1536 * kMiB) + "\n"}});
        QCOMPARE(availableMemoryBytes(r), 1536 * kMiB - 500 * kMiB);

        QTemporaryDir unlimited;
        const std::string u = root(unlimited, {{"proc/meminfo", "MemAvailable:   1000 kB\n"},
                                               {"proc/self/cgroup", "4:memory:/\n"},
                                               {"sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"},
                                               {"sys/fs/cgroup/memory/memory.usage_in_bytes", "5\n"}});
        QCOMPARE(availableMemoryBytes(u), std::uint64_t(1000) * 1024);
    }

    // A group already over its limit has no room; the system's figure never raises a group's.
    void fullGroup()
    {
        QTemporaryDir dir;
        const std::string r = root(dir, {{"proc/meminfo", "MemAvailable:   100 kB\n"},
                                         {"proc/self/cgroup", "0::/g\n"},
                                         {"sys/fs/cgroup/g/memory.max", "4096\n"},
                                         {"sys/fs/cgroup/g/memory.current", "8192\n"},
                                         {"sys/fs/cgroup/g/memory.stat", "file 0\n"}});
        QCOMPARE(availableMemoryBytes(r), std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestAvailableMemory)
#include "tst_available_memory.moc"
