// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// What one render of a chat template may spend, and how the interpreter and its builtins spend it.
///
/// A chat template comes with a model file from the internet, so a render must end quickly and
/// in bounded memory whatever the template does. render() installs a RenderBudget for its thread;
/// every evaluation, every element visited, every comparison and every byte scanned or created
/// is charged to it. Charges are free functions so that deep helpers (Value::equals, repr, the
/// builtins) can charge without a budget being passed through every call; with no budget
/// installed they cost nothing (parsing, building globals, tests).
///
/// @code
///   RenderBudget budget(limits);          // installs itself for this thread
///   try {
///       spendSteps(items.size());     // time
///       spendMemory(text.size());     // memory alive; releaseMemory() when freed
///   } catch (const RenderAborted& e) {  // the one exception of the renderer
///       return Status(ErrorCode::InvalidArgument, e.what());
///   }
/// @endcode

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hearth::jinja {

struct RenderLimits {
    std::uint64_t maxLoopIterations = 1'000'000; ///< over the whole render
    int maxCallDepth = 64;                        ///< nested macro calls
    /// Operations: an evaluation, an element visited, a comparison, 64 bytes of text scanned.
    /// Real templates spend a few thousand per message; this is about a second of work.
    std::uint64_t maxSteps = 20'000'000;
    /// Bytes of the strings, lists, dicts and functions alive at once, shared ones counted once.
    std::uint64_t maxMemoryBytes = 256u << 20;
};

/// Thrown when a render must stop at once: a charge over the budget, or values nested too deeply
/// to walk. render() turns it into an error message; nothing else of the renderer throws.
class RenderAborted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class RenderBudget {
public:
    explicit RenderBudget(const RenderLimits& limits);
    ~RenderBudget();
    RenderBudget(const RenderBudget&) = delete;
    RenderBudget& operator=(const RenderBudget&) = delete;

    [[nodiscard]] const RenderLimits& limits() const { return m_limits; }
    [[nodiscard]] std::uint64_t stepsSpent() const { return m_steps; }
    [[nodiscard]] std::uint64_t memorySpent() const { return m_memory; }

    void spendSteps(std::uint64_t steps);
    void spendMemory(std::uint64_t bytes);
    void releaseMemory(std::uint64_t bytes);

    /// The budget of the render running on this thread, or nullptr.
    [[nodiscard]] static RenderBudget* current();

private:
    RenderLimits m_limits;
    std::uint64_t m_steps = 0;
    std::uint64_t m_memory = 0;
    RenderBudget* m_previous;
};

/// Charges the current render, if any; throw RenderAborted when over.
void spendSteps(std::uint64_t steps = 1);
void spendMemory(std::uint64_t bytes);
/// Gives back what spendMemory() took, when a value is freed.
void releaseMemory(std::uint64_t bytes) noexcept;
/// Reading @p bytes of text once (strip, upper, copying into the output, ...).
inline void spendScan(std::size_t bytes)
{
    spendSteps(1 + bytes / 64);
}
/// Searching @p haystack bytes for a needle of @p needle bytes, charged at its worst case
/// (std::string::find compares up to the whole needle at each position).
inline void spendSearch(std::size_t haystack, std::size_t needle)
{
    const std::uint64_t perPosition = 1 + needle / 64;
    spendSteps(1 + (haystack / 64 + 1) * perPosition);
}

/// Values nested deeper than this (a list in a list in ...) are an error for the operations that
/// walk them: comparisons and tojson.
constexpr int MaxValueNesting = 64;

/// Upper bound on any one string a template builds, and on the rendered text.
constexpr std::size_t MaxCollectionSize = 64u << 20;
/// Upper bound on the items of any one list a template builds.
constexpr std::size_t MaxListItems = 1u << 22;

} // namespace hearth::jinja
