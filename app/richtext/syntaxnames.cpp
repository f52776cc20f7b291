// SPDX-License-Identifier: MIT
#include "syntaxnames.h"

#include <QHash>

namespace hearth {

namespace {

// Fence words seen in model answers, lower case -> KDE definition name. Names that already match
// a definition case-insensitively ("python", "rust", "json", ...) need no entry.
const QHash<QString, QString>& aliases()
{
    static const QHash<QString, QString> table = {
        {QStringLiteral("py"), QStringLiteral("Python")},
        {QStringLiteral("python3"), QStringLiteral("Python")},
        {QStringLiteral("py3"), QStringLiteral("Python")},
        {QStringLiteral("js"), QStringLiteral("JavaScript")},
        {QStringLiteral("javascript"), QStringLiteral("JavaScript")},
        {QStringLiteral("mjs"), QStringLiteral("JavaScript")},
        {QStringLiteral("node"), QStringLiteral("JavaScript")},
        {QStringLiteral("jsx"), QStringLiteral("JavaScript React (JSX)")},
        {QStringLiteral("ts"), QStringLiteral("TypeScript")},
        {QStringLiteral("tsx"), QStringLiteral("TypeScript React (TSX)")},
        {QStringLiteral("sh"), QStringLiteral("Bash")},
        {QStringLiteral("bash"), QStringLiteral("Bash")},
        {QStringLiteral("shell"), QStringLiteral("Bash")},
        {QStringLiteral("console"), QStringLiteral("Bash")},
        {QStringLiteral("shellscript"), QStringLiteral("Bash")},
        {QStringLiteral("zsh"), QStringLiteral("Zsh")},
        {QStringLiteral("c++"), QStringLiteral("C++")},
        {QStringLiteral("cpp"), QStringLiteral("C++")},
        {QStringLiteral("cxx"), QStringLiteral("C++")},
        {QStringLiteral("cc"), QStringLiteral("C++")},
        {QStringLiteral("hpp"), QStringLiteral("C++")},
        {QStringLiteral("h"), QStringLiteral("C")},
        {QStringLiteral("cs"), QStringLiteral("C#")},
        {QStringLiteral("csharp"), QStringLiteral("C#")},
        {QStringLiteral("c#"), QStringLiteral("C#")},
        {QStringLiteral("objc"), QStringLiteral("Objective-C")},
        {QStringLiteral("rs"), QStringLiteral("Rust")},
        {QStringLiteral("golang"), QStringLiteral("Go")},
        {QStringLiteral("yml"), QStringLiteral("YAML")},
        {QStringLiteral("md"), QStringLiteral("Markdown")},
        {QStringLiteral("htm"), QStringLiteral("HTML")},
        {QStringLiteral("xhtml"), QStringLiteral("HTML")},
        {QStringLiteral("svg"), QStringLiteral("XML")},
        {QStringLiteral("kt"), QStringLiteral("Kotlin")},
        {QStringLiteral("kts"), QStringLiteral("Kotlin")},
        {QStringLiteral("rb"), QStringLiteral("Ruby")},
        {QStringLiteral("pl"), QStringLiteral("Perl")},
        {QStringLiteral("php"), QStringLiteral("PHP/PHP")},
        {QStringLiteral("ps1"), QStringLiteral("PowerShell")},
        {QStringLiteral("pwsh"), QStringLiteral("PowerShell")},
        {QStringLiteral("hs"), QStringLiteral("Haskell")},
        {QStringLiteral("ini"), QStringLiteral("INI Files")},
        {QStringLiteral("cfg"), QStringLiteral("INI Files")},
        {QStringLiteral("make"), QStringLiteral("Makefile")},
        {QStringLiteral("mk"), QStringLiteral("Makefile")},
        {QStringLiteral("docker"), QStringLiteral("Dockerfile")},
        {QStringLiteral("patch"), QStringLiteral("Diff")},
        {QStringLiteral("tex"), QStringLiteral("LaTeX")},
        {QStringLiteral("r"), QStringLiteral("R Script")},
        {QStringLiteral("proto"), QStringLiteral("Protobuf")},
        {QStringLiteral("cu"), QStringLiteral("CUDA")},
        {QStringLiteral("postgresql"), QStringLiteral("SQL (PostgreSQL)")},
        {QStringLiteral("psql"), QStringLiteral("SQL (PostgreSQL)")},
        {QStringLiteral("mysql"), QStringLiteral("SQL (MySQL)")},
        {QStringLiteral("asm"), QStringLiteral("GNU Assembler")},
        {QStringLiteral("f90"), QStringLiteral("Fortran (Free Format)")},
        {QStringLiteral("fortran"), QStringLiteral("Fortran (Free Format)")},
    };
    return table;
}

} // namespace

QString syntaxNameForLanguage(const QString& language)
{
    const QString key = language.trimmed().toLower();
    const auto it = aliases().constFind(key);
    return it != aliases().constEnd() ? *it : language.trimmed();
}

QString resolveSyntaxName(const QString& language, const QStringList& available)
{
    if (language.trimmed().isEmpty())
        return {};
    const QString wanted = syntaxNameForLanguage(language);
    for (const QString& name : available) {
        if (name.compare(wanted, Qt::CaseInsensitive) == 0)
            return name;
    }
    return {};
}

} // namespace hearth
