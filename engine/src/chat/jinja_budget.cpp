// SPDX-License-Identifier: MIT
#include "chat/jinja_budget.h"

#include <algorithm>
#include <cstdint>

namespace hearth::jinja {

namespace {
thread_local RenderBudget* t_current = nullptr;
}

RenderBudget::RenderBudget(const RenderLimits& limits)
    : m_limits(limits)
    , m_previous(t_current)
{
    t_current = this;
}

RenderBudget::~RenderBudget()
{
    t_current = m_previous;
}

RenderBudget* RenderBudget::current()
{
    return t_current;
}

void RenderBudget::spendSteps(std::uint64_t steps)
{
    m_steps += steps;
    if (m_steps > m_limits.maxSteps)
        throw RenderAborted("the template does too much work (more than " + std::to_string(m_limits.maxSteps) + " steps)");
}

void RenderBudget::spendMemory(std::uint64_t bytes)
{
    m_memory += bytes;
    if (m_memory > m_limits.maxMemoryBytes)
        throw RenderAborted("the template builds too much data (more than " + std::to_string(m_limits.maxMemoryBytes >> 20) + " MiB)");
}

void RenderBudget::releaseMemory(std::uint64_t bytes)
{
    m_memory -= std::min(m_memory, bytes);
}

void spendSteps(std::uint64_t steps)
{
    if (t_current)
        t_current->spendSteps(steps);
}

void spendMemory(std::uint64_t bytes)
{
    if (t_current)
        t_current->spendMemory(bytes);
}

} // namespace hearth::jinja

namespace hearth::jinja {

void releaseMemory(std::uint64_t bytes) noexcept
{
    if (t_current)
        t_current->releaseMemory(bytes);
}

} // namespace hearth::jinja
