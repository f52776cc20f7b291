// SPDX-License-Identifier: MIT
// Chat templates from model files: any text parses or fails with a message, and any template that
// parses renders or fails with a message within its limits (here a small budget, so each input is
// quick), with a conversation that uses every role and a tool list.

#include "chat/jinja_interpreter.h"
#include "chat/jinja_lexer.h"
#include "chat/jinja_parser.h"
#include "fuzz_support.h"

#include <cstdint>

using namespace hearth;
using namespace hearth::jinja;

namespace {

ValueDict globals()
{
    ValueList messages;
    for (const auto& [role, content] : {std::pair("system", "Be brief."), std::pair("user", "Hello!"), std::pair("assistant", "Hi <b>there</b>."),
                                        std::pair("tool", "{\"temperature\": 21}"), std::pair("user", "Thanks\nbye")}) {
        ValueDict m;
        m.set("role", Value(role));
        m.set("content", Value(content));
        messages.emplace_back(std::move(m));
    }
    ValueDict parameters;
    parameters.set("type", Value("object"));
    ValueDict tool;
    tool.set("name", Value("get_weather"));
    tool.set("description", Value("Weather at a place"));
    tool.set("parameters", Value(std::move(parameters)));
    ValueDict g;
    g.set("messages", Value(std::move(messages)));
    g.set("tools", Value(ValueList{Value(std::move(tool))}));
    g.set("add_generation_prompt", Value(true));
    g.set("bos_token", Value("<s>"));
    g.set("eos_token", Value("</s>"));
    return g;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const ValueDict variables = globals();
    auto tokens = tokenize(fuzz::text(data, size));
    if (!fuzz::parsed(tokens))
        return 0;
    auto body = parse(*tokens);
    if (!fuzz::parsed(body))
        return 0;
    RenderLimits limits;
    limits.maxSteps = 200'000;
    limits.maxMemoryBytes = 16u << 20;
    limits.maxLoopIterations = 20'000;
    auto text = render(*body, variables, limits);
    if (fuzz::parsed(text))
        fuzz::require(text->size() <= MaxCollectionSize);
    return 0;
}
