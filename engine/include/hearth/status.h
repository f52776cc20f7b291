// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// Errors as values. Nothing a user can feed the engine (a file, a prompt, a setting) throws or
/// aborts: every fallible call returns a Status or a Result<T> with a human-readable message.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace hearth {

/// Why an operation failed. Callers switch on the code; users read the message.
enum class ErrorCode {
    Ok = 0,
    InvalidArgument, ///< a parameter is out of range or inconsistent
    IoError,         ///< the operating system refused (open, read, mmap, write, disk full)
    InvalidFile,     ///< a file is truncated, corrupt or not what it claims to be
    Unsupported,     ///< valid, but uses something Hearth cannot run (architecture, tensor type)
    OutOfMemory,     ///< an allocation failed (host or device)
    Cancelled,       ///< the caller asked to stop
    ContextFull,     ///< the session's context window has no room for the tokens
    LimitExceeded,   ///< the input asks for more work or memory than Hearth allows it (a hostile template)
    QualityTooLow,   ///< a result was made but is worse than the caller's bound (hearth-sparsify)
    Internal,        ///< a bug: an invariant did not hold
};

/// Success, or an error code with a message meant for people.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message)
        : m_code(code)
        , m_message(std::move(message))
    {
    }

    static Status error(ErrorCode code, std::string message) { return {code, std::move(message)}; }

    [[nodiscard]] bool ok() const { return m_code == ErrorCode::Ok; }
    explicit operator bool() const { return ok(); }
    [[nodiscard]] ErrorCode code() const { return m_code; }
    [[nodiscard]] const std::string& message() const { return m_message; }
    /// Itself; lets HEARTH_TRY treat Status and Result<T> alike.
    [[nodiscard]] const Status& status() const { return *this; }

private:
    ErrorCode m_code = ErrorCode::Ok;
    std::string m_message;
};

/// A value, or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value)
        : m_state(std::move(value))
    {
    }
    Result(Status status)
        : m_state(std::move(status))
    {
        assert(!std::get<Status>(m_state).ok() && "a Result built from a Status must carry an error");
    }
    Result(ErrorCode code, std::string message)
        : m_state(Status(code, std::move(message)))
    {
    }

    [[nodiscard]] bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    [[nodiscard]] T& value() & { return std::get<T>(m_state); }
    [[nodiscard]] const T& value() const& { return std::get<T>(m_state); }
    [[nodiscard]] T&& value() && { return std::get<T>(std::move(m_state)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    /// The error; a default (Ok) Status when this holds a value.
    [[nodiscard]] Status status() const { return ok() ? Status() : std::get<Status>(m_state); }
    [[nodiscard]] ErrorCode code() const { return ok() ? ErrorCode::Ok : std::get<Status>(m_state).code(); }
    [[nodiscard]] std::string message() const { return ok() ? std::string() : std::get<Status>(m_state).message(); }

private:
    std::variant<T, Status> m_state;
};

} // namespace hearth

/// Early-return helpers for code that returns Status or Result<T>.
#define HEARTH_TRY(expr)                                                                                     \
    do {                                                                                                     \
        auto hearthStatus_ = (expr);                                                                         \
        if (!hearthStatus_.ok())                                                                             \
            return hearthStatus_.status();                                                                   \
    } while (0)
