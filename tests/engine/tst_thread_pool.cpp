// SPDX-License-Identifier: MIT
// ThreadPool: every thread index runs once per run(), parallelFor covers ranges exactly, many
// tiny sections in a row neither deadlock nor lose work, and destruction is clean.

#include "cpu/thread_pool.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

using hearth::cpu::ThreadPool;

class TestThreadPool : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sizeAndCores();
    void everyIndexRunsOnce_data();
    void everyIndexRunsOnce();
    void parallelForCoversRange_data();
    void parallelForCoversRange();
    void manyTinyRuns();
    void wakesAfterSleeping();
    void destroyWhileIdle();
};

void TestThreadPool::sizeAndCores()
{
    QVERIFY(ThreadPool::physicalCoreCount() >= 1);
    QVERIFY(ThreadPool::physicalCoreCount() <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    ThreadPool automatic(0);
    QCOMPARE(automatic.size(), ThreadPool::physicalCoreCount());
    ThreadPool three(3);
    QCOMPARE(three.size(), 3);
}

void TestThreadPool::everyIndexRunsOnce_data()
{
    QTest::addColumn<int>("threads");
    for (int t : {1, 2, 3, 4, 7}) {
        QTest::addRow("%d threads", t) << t;
    }
}

void TestThreadPool::everyIndexRunsOnce()
{
    QFETCH(int, threads);
    ThreadPool pool(threads);
    for (int round = 0; round < 50; ++round) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(threads));
        std::atomic<int> wrongCount{0};
        pool.run([&](int index, int count) {
            if (count != threads) {
                wrongCount.fetch_add(1);
            }
            hits[static_cast<std::size_t>(index)].fetch_add(1);
        });
        QCOMPARE(wrongCount.load(), 0);
        for (const auto& h : hits) {
            QCOMPARE(h.load(), 1);
        }
    }
}

void TestThreadPool::parallelForCoversRange_data()
{
    QTest::addColumn<int>("threads");
    QTest::addColumn<qint64>("n");
    for (int t : {1, 2, 3, 5}) {
        for (qint64 n : {0, 1, 2, 3, 7, 64, 1001}) {
            QTest::addRow("%d threads, n=%lld", t, static_cast<long long>(n)) << t << n;
        }
    }
}

void TestThreadPool::parallelForCoversRange()
{
    QFETCH(int, threads);
    QFETCH(qint64, n);
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::atomic<int> badIndex{0};
    pool.parallelFor(n, [&](std::int64_t begin, std::int64_t end, int index) {
        if (begin >= end || index < 0 || index >= threads) {
            badIndex.fetch_add(1);
        }
        for (std::int64_t i = begin; i < end; ++i) {
            hits[static_cast<std::size_t>(i)].fetch_add(1);
        }
    });
    QCOMPARE(badIndex.load(), 0);
    for (qint64 i = 0; i < n; ++i) {
        QCOMPARE(hits[static_cast<std::size_t>(i)].load(), 1);
    }
}

void TestThreadPool::manyTinyRuns()
{
    // The decode loop runs ~10 sections per layer; 100k back-to-back sections must neither
    // deadlock nor drop a thread's share.
    ThreadPool pool(3);
    std::atomic<std::int64_t> total{0};
    constexpr int kRuns = 100000;
    for (int i = 0; i < kRuns; ++i) {
        pool.run([&](int, int) { total.fetch_add(1, std::memory_order_relaxed); });
    }
    QCOMPARE(total.load(), std::int64_t(kRuns) * 3);
}

void TestThreadPool::wakesAfterSleeping()
{
    // Long enough between sections for the workers to stop spinning and sleep.
    ThreadPool pool(2);
    for (int i = 0; i < 5; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::atomic<int> ran{0};
        pool.run([&](int, int) { ran.fetch_add(1); });
        QCOMPARE(ran.load(), 2);
    }
}

void TestThreadPool::destroyWhileIdle()
{
    for (int i = 0; i < 20; ++i) {
        ThreadPool pool(3);
        if (i % 2 == 0) {
            pool.run([](int, int) {});
        }
        if (i % 4 == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    } // destructor joins workers that are spinning or asleep
    ThreadPool never(4); // never ran anything
    QCOMPARE(never.size(), 4);
}

QTEST_GUILESS_MAIN(TestThreadPool)
#include "tst_thread_pool.moc"
