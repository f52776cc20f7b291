// SPDX-License-Identifier: MIT
// Helper for tst_chatstore's crash test: opens the store given on the command line, starts an
// answer and streams tokens until it is killed. Prints "ready <conversation> <message>" once and
// "token <n>" after the n-th token (0-based) was handed to the store.

#include "chatstore.h"

#include <QCoreApplication>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: chatstore_crash_child <database>\n");
        return 2;
    }
    hearth::ChatStore store;
    if (!store.open(QString::fromLocal8Bit(argv[1]))) {
        std::fprintf(stderr, "open failed: %s\n", qPrintable(store.lastError()));
        return 1;
    }
    const auto conversation = store.createConversation(QStringLiteral("Killed mid-answer"));
    const auto question = conversation
        ? store.addMessage(*conversation, 0, QStringLiteral("user"), QStringLiteral("Tell me a long story"))
        : std::nullopt;
    const auto answer = question ? store.beginAssistantMessage(*conversation, *question) : std::nullopt;
    if (!answer) {
        std::fprintf(stderr, "setup failed: %s\n", qPrintable(store.lastError()));
        return 1;
    }
    std::printf("ready %lld %lld\n", static_cast<long long>(*conversation), static_cast<long long>(*answer));
    std::fflush(stdout);

    // Tokens arrive from the event loop like they do from the engine worker, so the store's
    // flush timer runs too.
    int n = 0;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        store.appendToken(*answer, QStringLiteral("t%1 ").arg(n));
        std::printf("token %d\n", n);
        std::fflush(stdout);
        ++n;
    });
    tick.start(2);
    return app.exec();
}
