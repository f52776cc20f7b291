// SPDX-License-Identifier: MIT
#include "tool_options.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace hearth::tools {

namespace {

std::vector<std::string> splitNames(const std::string& names)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= names.size()) {
        const std::size_t comma = names.find(',', start);
        const std::size_t end = comma == std::string::npos ? names.size() : comma;
        if (end > start)
            out.push_back(names.substr(start, end - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace

ToolOptions::ToolOptions(std::string program, std::string summary)
    : m_program(std::move(program))
    , m_summary(std::move(summary))
{
}

void ToolOptions::add(const std::string& names, std::string valueName, std::string help,
                      std::function<bool(const std::string&, std::string&)> apply)
{
    m_options.push_back({splitNames(names), std::move(valueName), std::move(help), std::move(apply)});
}

void ToolOptions::addFlag(const std::string& names, const std::string& help, bool* target)
{
    add(names, {}, help, [target](const std::string&, std::string&) {
        *target = true;
        return true;
    });
}

void ToolOptions::addString(const std::string& names, const std::string& valueName, const std::string& help,
                            std::string* target)
{
    add(names, valueName, help, [target](const std::string& v, std::string&) {
        *target = v;
        return true;
    });
}

void ToolOptions::addInt(const std::string& names, const std::string& valueName, const std::string& help, int* target,
                         int minimum, int maximum)
{
    add(names, valueName, help, [=](const std::string& v, std::string& error) {
        int value = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
        if (ec != std::errc() || end != v.data() + v.size()) {
            error = "expects an integer, not '" + v + "'";
            return false;
        }
        if (value < minimum || value > maximum) {
            error = "must be between " + std::to_string(minimum) + " and " + std::to_string(maximum);
            return false;
        }
        *target = value;
        return true;
    });
}

void ToolOptions::addFloat(const std::string& names, const std::string& valueName, const std::string& help,
                           float* target)
{
    add(names, valueName, help, [target](const std::string& v, std::string& error) {
        // strtof rather than from_chars: libstdc++ 12's float from_chars is fine, but older
        // toolchains lack it; the C locale is in effect since the tools never call setlocale.
        char* end = nullptr;
        errno = 0;
        const float value = std::strtof(v.c_str(), &end);
        if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || value != value) {
            error = "expects a number, not '" + v + "'";
            return false;
        }
        *target = value;
        return true;
    });
}

void ToolOptions::addDeviceOptions(DeviceOptions* target)
{
    add("--vram-budget", "GiB",
        "GPU memory to use (hot FFN neurons of sparse files, the most used experts of mixtures, whole layers of "
        "dense files), in GiB; 0 runs on the CPU only (default: auto, the free VRAM less 256 MiB)",
        [target](const std::string& v, std::string& error) {
            std::string lower = v;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                           [](unsigned char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); });
            if (lower == "auto") {
                target->vramBudgetGiB = -1;
                return true;
            }
            char* end = nullptr;
            errno = 0;
            const double value = std::strtod(v.c_str(), &end);
            // At most 1 PiB, as sparse::gibToBytes accepts.
            if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !(value >= 0) || value > 1048576.0) {
                error = "expects a number of GiB (0 or more) or 'auto', not '" + v + "'";
                return false;
            }
            target->vramBudgetGiB = value;
            return true;
        });
    add("-ctk,--cache-type", "TYPE", "KV cache type: f16, q8_0 (less memory) or f32 (default f16)",
        [target](const std::string& v, std::string& error) {
            if (v != "f16" && v != "f32" && v != "q8_0") {
                error = "expects f16, q8_0 or f32, not '" + v + "'";
                return false;
            }
            target->kvCache = v;
            return true;
        });
    addFlag("--reset-gpu-index", "recompute the cached neuron placement beside the model", &target->resetGpuIndex);
    addFlag("--disable-gpu-index", "keep every FFN neuron on the CPU and leave the cached placement alone",
            &target->disableGpuIndex);
    addFlag("--experts-by-layer",
            "mixtures of experts: place experts on the GPU layer by layer (llama.cpp's --n-cpu-moe), not the most "
            "used first",
            &target->expertsByLayer);
}

void ToolOptions::addUInt64(const std::string& names, const std::string& valueName, const std::string& help,
                            std::uint64_t* target)
{
    add(names, valueName, help, [target](const std::string& v, std::string& error) {
        std::uint64_t value = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
        if (ec != std::errc() || end != v.data() + v.size()) {
            error = "expects a non-negative integer, not '" + v + "'";
            return false;
        }
        *target = value;
        return true;
    });
}

ToolOptions::Option* ToolOptions::find(const std::string& name)
{
    for (auto& option : m_options) {
        if (std::find(option.names.begin(), option.names.end(), name) != option.names.end())
            return &option;
    }
    return nullptr;
}

bool ToolOptions::wasSet(const std::string& name) const
{
    for (const auto& option : m_options) {
        if (std::find(option.names.begin(), option.names.end(), name) != option.names.end())
            return option.seen;
    }
    return false;
}

ToolOptions::Outcome ToolOptions::parse(int argc, char** argv)
{
    auto failure = [&](const std::string& message) {
        std::fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", m_program.c_str(), message.c_str(),
                     m_program.c_str());
        return Outcome::ExitFailure;
    };
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(helpText().c_str(), stdout);
            return Outcome::ExitSuccess;
        }
        std::string value;
        bool inlineValue = false;
        if (arg.rfind("--", 0) == 0) {
            if (const std::size_t eq = arg.find('='); eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg.resize(eq);
                inlineValue = true;
            }
        }
        Option* option = find(arg);
        if (!option)
            return failure(arg.rfind("-", 0) == 0 ? "unknown option '" + arg + "'" : "unexpected argument '" + arg + "'");
        if (option->valueName.empty()) {
            if (inlineValue)
                return failure("option '" + arg + "' takes no value");
        } else if (!inlineValue) {
            if (i + 1 >= argc)
                return failure("option '" + arg + "' needs a value (" + option->valueName + ")");
            value = argv[++i];
        }
        std::string error;
        if (!option->apply(value, error))
            return failure("option '" + arg + "' " + error);
        option->seen = true;
    }
    return Outcome::Run;
}

std::string ToolOptions::helpText() const
{
    std::string text = "Usage: " + m_program + " [options]\n" + m_summary + "\n\nOptions:\n";
    std::vector<std::pair<std::string, std::string>> rows;
    std::size_t width = 0;
    for (const auto& option : m_options) {
        std::string left;
        for (const auto& name : option.names)
            left += (left.empty() ? "" : ", ") + name;
        if (!option.valueName.empty())
            left += " " + option.valueName;
        width = std::max(width, left.size());
        rows.emplace_back(std::move(left), option.help);
    }
    rows.emplace_back("-h, --help", "show this help and exit");
    width = std::max(width, rows.back().first.size());
    for (const auto& [left, help] : rows)
        text += "  " + left + std::string(width - left.size() + 2, ' ') + help + "\n";
    return text;
}

std::optional<std::string> readTextFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        return std::nullopt;
    return text;
}

std::string formatBytes(std::uint64_t bytes)
{
    char buffer[32];
    const double b = static_cast<double>(bytes);
    if (bytes >= (std::uint64_t{1} << 30))
        std::snprintf(buffer, sizeof buffer, "%.2f GiB", b / (1u << 30));
    else if (bytes >= (1u << 20))
        std::snprintf(buffer, sizeof buffer, "%.1f MiB", b / (1u << 20));
    else if (bytes >= 1024)
        std::snprintf(buffer, sizeof buffer, "%.1f KiB", b / 1024);
    else
        std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
    return buffer;
}

ProgressLine::ProgressLine(bool quiet)
    : m_quiet(quiet)
    , m_start(std::chrono::steady_clock::now())
{
}

std::function<bool(float)> ProgressLine::callback()
{
    return [this](float fraction) {
        const int percent = static_cast<int>(fraction * 100.0f);
        if (!m_quiet && percent != m_lastPercent) {
            std::fprintf(stderr, "\r  %3d%%", percent);
            std::fflush(stderr);
            m_lastPercent = percent;
        }
        return true;
    };
}

double ProgressLine::finish()
{
    if (!m_quiet)
        std::fprintf(stderr, "\n");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

} // namespace hearth::tools
