// SPDX-License-Identifier: MIT
#pragma once

#include "chat_controller.h"
#include "model_session.h"

namespace hearth::test {

/// The window's ModelSession and the ChatController that asks it, wired as main() wires them:
/// the session is made first and destroyed last. Tests use it as the controller, and reach the
/// model through session().
///
///     auto chat = std::make_unique<ChatWithSession>();
///     chat->session()->loadModel(path);
///     chat->send(QStringLiteral("Hello"));
namespace detail {
struct SessionHolder
{
    hearth::app::ModelSession ownSession { nullptr };
};
} // namespace detail

class ChatWithSession : private detail::SessionHolder, public hearth::app::ChatController
{
public:
    ChatWithSession()
        : hearth::app::ChatController(&ownSession, nullptr)
    {
    }
};

} // namespace hearth::test
