// SPDX-License-Identifier: MIT
#pragma once

// A small command-line parser shared by the engine's tools. Each tool declares its options
// (flag names, help text, where the value goes) and gets --help text and clear errors for
// unknown flags, missing values and values that do not parse, without a dependency.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hearth::tools {

// Where a tool's session puts its work: the fields of hearth::SessionParams of the same names
// (this library does not depend on the engine).
struct DeviceOptions {
    double vramBudgetGiB = -1; // < 0: automatic; 0: CPU only
    bool resetGpuIndex = false;
    bool disableGpuIndex = false;
    bool expertsByLayer = false;
    std::string kvCache = "f16"; // SessionParams::kvCache by name (kvCacheTypeFromName)
};

class ToolOptions {
public:
    ToolOptions(std::string program, std::string summary);

    // A flag that takes no value (sets @p target to true).
    void addFlag(const std::string& names, const std::string& help, bool* target);
    // Options with a value. @p names is "-m,--model"; @p valueName appears in the help text.
    void addString(const std::string& names, const std::string& valueName, const std::string& help, std::string* target);
    void addInt(const std::string& names, const std::string& valueName, const std::string& help, int* target,
                int minimum, int maximum);
    void addFloat(const std::string& names, const std::string& valueName, const std::string& help, float* target);
    void addUInt64(const std::string& names, const std::string& valueName, const std::string& help,
                   std::uint64_t* target);
    // --vram-budget <GiB|auto>, --reset-gpu-index and --disable-gpu-index, the same in every tool.
    void addDeviceOptions(DeviceOptions* target);

    enum class Outcome { Run, ExitSuccess, ExitFailure };
    // Parses argv. Prints --help to stdout (ExitSuccess) or an error and a hint to stderr
    // (ExitFailure). --help / -h is always available.
    [[nodiscard]] Outcome parse(int argc, char** argv);

    [[nodiscard]] std::string helpText() const;
    // Whether an option (any of its names) appeared on the command line.
    [[nodiscard]] bool wasSet(const std::string& name) const;

private:
    struct Option {
        std::vector<std::string> names;
        std::string valueName; // empty: a flag
        std::string help;
        std::function<bool(const std::string& value, std::string& error)> apply;
        bool seen = false;
    };
    void add(const std::string& names, std::string valueName, std::string help,
             std::function<bool(const std::string&, std::string&)> apply);
    Option* find(const std::string& name);

    std::string m_program;
    std::string m_summary;
    std::vector<Option> m_options;
};

// The progress of a tool's long step on stderr ("\r  NN%", each percent once) and the time
// it took; a quiet tool prints nothing. Construct it right before the step.
class ProgressLine {
public:
    explicit ProgressLine(bool quiet);

    // For the step's progress callback: takes the fraction done and never cancels. Refers to
    // this object, which must outlive the step.
    [[nodiscard]] std::function<bool(float)> callback();

    // Ends the progress line; returns the seconds since construction.
    double finish();

private:
    bool m_quiet;
    int m_lastPercent = -1;
    std::chrono::steady_clock::time_point m_start;
};

// "1.5 GiB", "820 MiB": for progress and summaries.
[[nodiscard]] std::string formatBytes(std::uint64_t bytes);

// The whole of the file at @p path (a text to run, a chat template); nullopt when it cannot be read.
[[nodiscard]] std::optional<std::string> readTextFile(const std::string& path);

} // namespace hearth::tools
