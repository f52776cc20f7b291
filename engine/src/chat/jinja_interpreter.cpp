// SPDX-License-Identifier: MIT
#include "chat/jinja_interpreter.h"

#include "chat/checked_math.h"
#include "chat/jinja_builtins.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>

namespace hearth::jinja {

namespace {

#define JINJA_ASSIGN_OR_RETURN(var, expr)                                                                    \
    auto var##Result_ = (expr);                                                                              \
    if (!var##Result_.ok())                                                                                  \
        return var##Result_.status();                                                                        \
    auto var = std::move(var##Result_).value()

enum class Flow { Normal, Break, Continue };

class Interpreter {
public:
    Interpreter(const ValueDict& globals, const RenderLimits& limits)
        : m_limits(limits)
    {
        m_scopes.push_back(standardGlobals());
        for (const auto& [k, v] : globals.entries)
            m_scopes.back().set(k, v);
        // Namespaces are the only values a template can change, so the only way to make a value
        // that holds itself; the interpreter keeps them to know them and to break such cycles.
        const Value makeNamespace = *m_scopes.back().find("namespace");
        m_scopes.back().set("namespace", Value(NativeFunction([this, makeNamespace](const CallArgs& args) -> Result<Value> {
            auto ns = makeNamespace.asFunction()(args);
            if (ns)
                m_namespaces.emplace(&ns->asDict(), *ns);
            return ns;
        })));
        m_scopes.emplace_back(); // the template's own top-level variables
    }

    ~Interpreter()
    {
        // {% set ns.self = ns %} is a cycle of shared pointers that would never be freed.
        for (const auto& [dict, ns] : m_namespaces)
            ns.asDict().entries.clear();
    }

    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    Result<std::string> run(const Body& body)
    {
        JINJA_ASSIGN_OR_RETURN(flow, exec(body));
        (void)flow;
        return std::move(m_out);
    }

private:
    // Errors from builtins carry no position; errors from a macro body already do.
    Status positioned(SourcePos pos, const Status& status)
    {
        if (m_positioned) {
            m_positioned = false;
            return status;
        }
        return {status.code(), describe(pos) + status.message()};
    }

    static Status errorAt(SourcePos pos, const std::string& message) { return {ErrorCode::InvalidArgument, describe(pos) + message}; }
    // A limit that keeps a hostile template from running away (time, memory, depth).
    static Status limitAt(SourcePos pos, const std::string& message) { return {ErrorCode::LimitExceeded, describe(pos) + message}; }

    Value lookup(const std::string& name) const
    {
        for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it) {
            if (const Value* v = it->find(name))
                return *v;
        }
        return {};
    }

    Status append(SourcePos pos, const std::string& text)
    {
        spendScan(text.size());
        m_out += text;
        if (m_out.size() > MaxCollectionSize)
            return limitAt(pos, "the rendered text is too large");
        return {};
    }

    Status countIteration(SourcePos pos)
    {
        if (++m_iterations > m_limits.maxLoopIterations)
            return limitAt(pos, "too many loop iterations (more than " + std::to_string(m_limits.maxLoopIterations) + ")");
        return {};
    }

    // Renders @p body into a string of its own (macros, {% set %} blocks, {% filter %}).
    Result<std::string> capture(const Body& body)
    {
        std::string saved = std::move(m_out);
        m_out.clear();
        auto flow = exec(body);
        std::string captured = std::move(m_out);
        m_out = std::move(saved);
        if (!flow)
            return flow.status();
        return captured;
    }

    Result<Flow> exec(const Body& body)
    {
        for (const auto& stmt : body) {
            JINJA_ASSIGN_OR_RETURN(flow, execStmt(*stmt));
            if (flow != Flow::Normal)
                return flow;
        }
        return Flow::Normal;
    }

    Result<Flow> execStmt(const Stmt& stmt)
    {
        spendSteps();
        switch (stmt.kind) {
        case Stmt::Kind::Text:
            HEARTH_TRY(append(stmt.pos, static_cast<const TextStmt&>(stmt).text));
            return Flow::Normal;
        case Stmt::Kind::Output: {
            JINJA_ASSIGN_OR_RETURN(value, eval(*static_cast<const OutputStmt&>(stmt).expr));
            HEARTH_TRY(append(stmt.pos, value.str()));
            return Flow::Normal;
        }
        case Stmt::Kind::If: {
            const auto& s = static_cast<const IfStmt&>(stmt);
            for (const auto& [condition, body] : s.branches) {
                JINJA_ASSIGN_OR_RETURN(value, eval(*condition));
                if (value.truthy())
                    return exec(body);
            }
            return exec(s.otherwise);
        }
        case Stmt::Kind::For:
            return execFor(static_cast<const ForStmt&>(stmt));
        case Stmt::Kind::Set:
            return execSet(static_cast<const SetStmt&>(stmt));
        case Stmt::Kind::Macro: {
            const auto& s = static_cast<const MacroStmt&>(stmt);
            m_scopes.back().set(s.name, Value(NativeFunction([this, &s](const CallArgs& args) { return callMacro(s, args); })));
            return Flow::Normal;
        }
        case Stmt::Kind::FilterBlock: {
            const auto& s = static_cast<const FilterBlockStmt&>(stmt);
            JINJA_ASSIGN_OR_RETURN(text, capture(s.body));
            JINJA_ASSIGN_OR_RETURN(args, evalArgs(s.args));
            auto filtered = applyFilter(s.name, Value(std::move(text)), args);
            if (!filtered)
                return positioned(s.pos, filtered.status());
            HEARTH_TRY(append(s.pos, filtered->str()));
            return Flow::Normal;
        }
        case Stmt::Kind::Break:
            return Flow::Break;
        case Stmt::Kind::Continue:
            return Flow::Continue;
        }
        return Flow::Normal;
    }

    Status bindTargets(const std::vector<std::string>& targets, const Value& value, SourcePos pos)
    {
        if (targets.size() == 1) {
            m_scopes.back().set(targets[0], value);
            return {};
        }
        if (!value.isList() || value.asList().size() != targets.size())
            return errorAt(pos, "cannot unpack " + value.typeName() + " into " + std::to_string(targets.size()) + " names");
        for (std::size_t i = 0; i < targets.size(); ++i)
            m_scopes.back().set(targets[i], value.asList()[i]);
        return {};
    }

    Result<Flow> execFor(const ForStmt& s)
    {
        JINJA_ASSIGN_OR_RETURN(iterable, eval(*s.iterable));
        ValueList items;
        if (iterable.isList()) {
            items = iterable.asList(); // a copy: the body cannot disturb the iteration
        } else if (iterable.isDict()) {
            for (const auto& [k, _] : iterable.asDict().entries)
                items.emplace_back(k);
        } else if (iterable.isString()) {
            auto chars = applyFilter("list", iterable, {});
            if (!chars)
                return positioned(s.pos, chars.status());
            items = chars->asList();
        } else if (!iterable.isUndefined() && !iterable.isNone()) {
            return errorAt(s.iterable->pos, "'" + iterable.typeName() + "' object is not iterable");
        }

        // The loop's variables live in a scope of their own (Jinja's scoping: a plain {% set %}
        // in the body does not leak out; namespace() exists for that). An error ends the whole
        // render, so early returns need not restore the scope stack.
        m_scopes.emplace_back();
        if (s.filter) {
            // "for x in xs if cond" filters first, so loop.index and loop.length count kept items only.
            ValueList kept;
            for (auto& item : items) {
                HEARTH_TRY(countIteration(s.pos));
                HEARTH_TRY(bindTargets(s.targets, item, s.pos));
                JINJA_ASSIGN_OR_RETURN(keep, eval(*s.filter));
                if (keep.truthy())
                    kept.push_back(std::move(item));
            }
            items = std::move(kept);
        }
        if (items.empty()) {
            m_scopes.pop_back();
            return exec(s.otherwise);
        }

        // One loop object per run of the loop, updated in place: a fresh dict per iteration
        // would cost more than most loop bodies.
        const auto length = static_cast<std::int64_t>(items.size());
        auto cycleIndex = std::make_shared<std::int64_t>(0);
        ValueDict loopFields;
        loopFields.set("cycle", Value(NativeFunction([cycleIndex](const CallArgs& args) -> Result<Value> {
            if (args.positional.empty())
                return Result<Value>(ErrorCode::InvalidArgument, "loop.cycle() needs at least one value");
            return args.positional[static_cast<std::size_t>(*cycleIndex) % args.positional.size()];
        })));
        for (const char* name : {"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth", "depth0", "previtem", "nextitem"})
            loopFields.set(name, Value());
        const Value loopValue(std::move(loopFields));
        m_scopes.back().set("loop", loopValue);
        ValueDict& loop = loopValue.asDict();
        for (std::int64_t i = 0; i < length; ++i) {
            HEARTH_TRY(countIteration(s.pos));
            const auto index = static_cast<std::size_t>(i);
            HEARTH_TRY(bindTargets(s.targets, items[index], s.pos));
            *cycleIndex = i;
            loop.set("index", Value(i + 1));
            loop.set("index0", Value(i));
            loop.set("revindex", Value(length - i));
            loop.set("revindex0", Value(length - i - 1));
            loop.set("first", Value(i == 0));
            loop.set("last", Value(i == length - 1));
            loop.set("length", Value(length));
            loop.set("depth", Value(std::int64_t(1)));
            loop.set("depth0", Value(std::int64_t(0)));
            loop.set("previtem", i > 0 ? items[index - 1] : Value());
            loop.set("nextitem", i + 1 < length ? items[index + 1] : Value());
            JINJA_ASSIGN_OR_RETURN(flow, exec(s.body));
            if (flow == Flow::Break)
                break;
        }
        m_scopes.pop_back();
        return Flow::Normal;
    }

    Result<Flow> execSet(const SetStmt& s)
    {
        Value value;
        if (s.value) {
            JINJA_ASSIGN_OR_RETURN(v, eval(*s.value));
            value = std::move(v);
        } else {
            JINJA_ASSIGN_OR_RETURN(text, capture(s.body));
            value = Value(std::move(text));
        }
        if (s.object) {
            JINJA_ASSIGN_OR_RETURN(object, eval(*s.object));
            if (!object.isDict() || !m_namespaces.contains(&object.asDict()))
                return errorAt(s.pos, "cannot set attribute '" + s.targets[0] + "' on " + object.typeName()
                                          + " (only on a namespace(); use one to change a variable from inside a loop)");
            object.asDict().setAttribute(s.targets[0], std::move(value));
            return Flow::Normal;
        }
        HEARTH_TRY(bindTargets(s.targets, value, s.pos));
        return Flow::Normal;
    }

    Result<Value> callMacro(const MacroStmt& s, const CallArgs& args)
    {
        if (m_callDepth >= m_limits.maxCallDepth) {
            m_positioned = true;
            return limitAt(s.pos, "macro calls are nested too deeply (recursion?)");
        }
        ValueDict frame;
        for (std::size_t i = 0; i < s.params.size(); ++i) {
            const auto& [name, defaultExpr] = s.params[i];
            if (const Value* v = args.get(name, i)) {
                frame.set(name, *v);
            } else if (defaultExpr) {
                auto v = eval(*defaultExpr);
                if (!v) {
                    m_positioned = true;
                    return v.status();
                }
                frame.set(name, std::move(v).value());
            } else {
                frame.set(name, Value());
            }
        }
        ++m_callDepth;
        m_scopes.push_back(std::move(frame));
        auto text = capture(s.body);
        m_scopes.pop_back();
        --m_callDepth;
        if (!text) {
            m_positioned = true;
            return text.status();
        }
        return Value(std::move(text).value());
    }

    Result<CallArgs> evalArgs(const ArgExprs& exprs)
    {
        CallArgs args;
        for (const auto& e : exprs.positional) {
            JINJA_ASSIGN_OR_RETURN(v, eval(*e));
            args.positional.push_back(std::move(v));
        }
        for (const auto& [name, e] : exprs.named) {
            JINJA_ASSIGN_OR_RETURN(v, eval(*e));
            args.named.emplace_back(name, std::move(v));
        }
        return args;
    }

    Result<Value> eval(const Expr& expr)
    {
        spendSteps();
        switch (expr.kind) {
        case Expr::Kind::Literal:
            return static_cast<const LiteralExpr&>(expr).value;
        case Expr::Kind::Name:
            return lookup(static_cast<const NameExpr&>(expr).name);
        case Expr::Kind::List: {
            ValueList list;
            for (const auto& item : static_cast<const ListExpr&>(expr).items) {
                JINJA_ASSIGN_OR_RETURN(v, eval(*item));
                list.push_back(std::move(v));
            }
            return Value(std::move(list));
        }
        case Expr::Kind::Dict: {
            ValueDict dict;
            for (const auto& [keyExpr, valueExpr] : static_cast<const DictExpr&>(expr).items) {
                JINJA_ASSIGN_OR_RETURN(key, eval(*keyExpr));
                JINJA_ASSIGN_OR_RETURN(value, eval(*valueExpr));
                dict.set(key.str(), std::move(value));
            }
            return Value(std::move(dict));
        }
        case Expr::Kind::Attribute: {
            const auto& e = static_cast<const AttributeExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(object, eval(*e.object));
            return attribute(object, e.name);
        }
        case Expr::Kind::Subscript: {
            const auto& e = static_cast<const SubscriptExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(object, eval(*e.object));
            JINJA_ASSIGN_OR_RETURN(index, eval(*e.index));
            return subscript(object, index);
        }
        case Expr::Kind::Slice:
            return evalSlice(static_cast<const SliceExpr&>(expr));
        case Expr::Kind::Call: {
            const auto& e = static_cast<const CallExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(callee, eval(*e.callee));
            JINJA_ASSIGN_OR_RETURN(args, evalArgs(e.args));
            if (!callee.isFunction()) {
                std::string what = "this value";
                if (e.callee->kind == Expr::Kind::Name)
                    what = "'" + static_cast<const NameExpr&>(*e.callee).name + "'";
                else if (e.callee->kind == Expr::Kind::Attribute)
                    what = "'" + static_cast<const AttributeExpr&>(*e.callee).name + "'";
                return errorAt(e.pos, what + (callee.isUndefined() ? " is undefined" : " is not callable"));
            }
            auto result = callee.asFunction()(args);
            if (!result)
                return positioned(e.pos, result.status());
            return result;
        }
        case Expr::Kind::Unary: {
            const auto& e = static_cast<const UnaryExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(v, eval(*e.operand));
            if (e.op == UnaryOp::Not)
                return Value(!v.truthy());
            if (v.isInt())
                return e.op == UnaryOp::Neg ? Value(v.asInt() == INT64_MIN ? v.asInt() : -v.asInt()) : v;
            if (v.isFloat() || v.isBool())
                return Value(e.op == UnaryOp::Neg ? -v.asNumber() : v.asNumber());
            return errorAt(e.pos, "bad operand type for unary operator: " + v.typeName());
        }
        case Expr::Kind::Binary:
            return evalBinary(static_cast<const BinaryExpr&>(expr));
        case Expr::Kind::Conditional: {
            const auto& e = static_cast<const ConditionalExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(condition, eval(*e.condition));
            if (condition.truthy())
                return eval(*e.then);
            return e.otherwise ? eval(*e.otherwise) : Result<Value>(Value());
        }
        case Expr::Kind::Filter: {
            const auto& e = static_cast<const FilterExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(operand, eval(*e.operand));
            JINJA_ASSIGN_OR_RETURN(args, evalArgs(e.args));
            auto result = applyFilter(e.name, operand, args);
            if (!result)
                return positioned(e.pos, result.status());
            return result;
        }
        case Expr::Kind::Test: {
            const auto& e = static_cast<const TestExpr&>(expr);
            JINJA_ASSIGN_OR_RETURN(operand, eval(*e.operand));
            JINJA_ASSIGN_OR_RETURN(args, evalArgs(e.args));
            auto result = applyTest(e.name, operand, args);
            if (!result)
                return positioned(e.pos, result.status());
            return Value(*result != e.negated);
        }
        }
        return Value();
    }

    Value attribute(const Value& object, const std::string& name)
    {
        if (object.isDict()) {
            if (const Value* v = object.asDict().find(name))
                return *v;
        }
        if (hasMethod(object, name)) {
            return Value(NativeFunction([object, name](const CallArgs& args) { return callMethod(object, name, args); }));
        }
        if (object.isList()) {
            // Jinja's x.0 is x[0].
            std::int64_t index = 0;
            for (const char c : name) {
                if (c < '0' || c > '9' || index > 1'000'000'000)
                    return {};
                index = index * 10 + (c - '0');
            }
            return subscript(object, Value(index));
        }
        return {};
    }

    static Value subscript(const Value& object, const Value& index)
    {
        if (object.isDict())
            return index.isString() ? (object.asDict().find(index.asString()) ? *object.asDict().find(index.asString()) : Value())
                                    : Value();
        if ((object.isList() || object.isString()) && index.isInt()) {
            const std::int64_t size = object.isList() ? static_cast<std::int64_t>(object.asList().size())
                                                      : static_cast<std::int64_t>(object.asString().size());
            std::int64_t i = index.asInt();
            if (i < 0)
                i += size;
            if (i < 0 || i >= size)
                return {};
            if (object.isList())
                return object.asList()[static_cast<std::size_t>(i)];
            return Value(std::string(1, object.asString()[static_cast<std::size_t>(i)]));
        }
        return {};
    }

    Result<Value> evalSlice(const SliceExpr& e)
    {
        JINJA_ASSIGN_OR_RETURN(object, eval(*e.object));
        std::optional<std::int64_t> bounds[3];
        const ExprPtr* parts[3] = {&e.start, &e.stop, &e.step};
        for (int k = 0; k < 3; ++k) {
            if (!*parts[k])
                continue;
            JINJA_ASSIGN_OR_RETURN(v, eval(**parts[k]));
            if (v.isNone() || v.isUndefined())
                continue;
            if (!v.isInt())
                return errorAt(e.pos, "slice indices must be integers");
            bounds[k] = v.asInt();
        }
        const std::int64_t step = bounds[2].value_or(1);
        if (step == 0)
            return errorAt(e.pos, "slice step cannot be zero");
        if (!object.isList() && !object.isString()) {
            if (object.isUndefined() || object.isNone())
                return Value();
            return errorAt(e.pos, "cannot slice " + object.typeName());
        }
        const std::int64_t size = object.isList() ? static_cast<std::int64_t>(object.asList().size())
                                                  : static_cast<std::int64_t>(object.asString().size());
        // Python's slice.indices().
        const auto clampIndex = [&](std::optional<std::int64_t> v, std::int64_t fallback) {
            if (!v)
                return fallback;
            std::int64_t i = *v;
            if (i < 0)
                i += size;
            if (step > 0)
                return std::clamp<std::int64_t>(i, 0, size);
            return std::clamp<std::int64_t>(i, -1, size - 1);
        };
        const std::int64_t start = clampIndex(bounds[0], step > 0 ? 0 : size - 1);
        const std::int64_t stop = clampIndex(bounds[1], step > 0 ? size : -1);
        ValueList list;
        std::string text;
        // start and stop lie in [-1, size]; a step that would jump past the end (or overflow
        // getting there) ends the slice.
        for (std::int64_t i = start; step > 0 ? i < stop : i > stop;) {
            if (object.isList())
                list.push_back(object.asList()[static_cast<std::size_t>(i)]);
            else
                text += object.asString()[static_cast<std::size_t>(i)];
            if (addOverflows(i, step, i))
                break;
        }
        return object.isList() ? Value(std::move(list)) : Value(std::move(text));
    }

    Result<Value> evalBinary(const BinaryExpr& e)
    {
        JINJA_ASSIGN_OR_RETURN(left, eval(*e.left));
        if (e.op == BinaryOp::And)
            return left.truthy() ? eval(*e.right) : Result<Value>(left);
        if (e.op == BinaryOp::Or)
            return left.truthy() ? Result<Value>(left) : eval(*e.right);
        JINJA_ASSIGN_OR_RETURN(right, eval(*e.right));
        const auto tooLarge = [&](std::size_t size) { return size > MaxCollectionSize; };
        const auto unsupported = [&](const char* op) {
            return errorAt(e.pos, std::string("unsupported operand types for ") + op + ": " + left.typeName() + " and " + right.typeName());
        };
        const bool numbers = (left.isNumber() || left.isBool()) && (right.isNumber() || right.isBool());
        const bool ints = (left.isInt() || left.isBool()) && (right.isInt() || right.isBool());
        const auto asInt = [](const Value& v) { return v.isBool() ? std::int64_t(v.asBool()) : v.asInt(); };

        switch (e.op) {
        case BinaryOp::Add:
            if (ints) {
                std::int64_t r = 0;
                if (addOverflows(asInt(left), asInt(right), r))
                    return errorAt(e.pos, "integer overflow");
                return Value(r);
            }
            if (numbers)
                return Value(left.asNumber() + right.asNumber());
            if (left.isString() && right.isString()) {
                if (tooLarge(left.asString().size() + right.asString().size()))
                    return limitAt(e.pos, "string is too large");
                return Value(left.asString() + right.asString());
            }
            if (left.isList() && right.isList()) {
                if (left.asList().size() + right.asList().size() > MaxListItems)
                    return limitAt(e.pos, "list is too large");
                ValueList joined = left.asList();
                joined.insert(joined.end(), right.asList().begin(), right.asList().end());
                return Value(std::move(joined));
            }
            return unsupported("+");
        case BinaryOp::Sub:
            if (ints) {
                std::int64_t r = 0;
                if (subOverflows(asInt(left), asInt(right), r))
                    return errorAt(e.pos, "integer overflow");
                return Value(r);
            }
            if (numbers)
                return Value(left.asNumber() - right.asNumber());
            return unsupported("-");
        case BinaryOp::Mul: {
            if (ints) {
                std::int64_t r = 0;
                if (mulOverflows(asInt(left), asInt(right), r))
                    return errorAt(e.pos, "integer overflow");
                return Value(r);
            }
            if (numbers)
                return Value(left.asNumber() * right.asNumber());
            const Value& seq = left.isInt() ? right : left;
            const Value& count = left.isInt() ? left : right;
            if (!count.isInt() || (!seq.isString() && !seq.isList()))
                return unsupported("*");
            const auto n = static_cast<std::size_t>(std::max<std::int64_t>(0, count.asInt()));
            const std::size_t unit = seq.isString() ? seq.asString().size() : seq.asList().size();
            const std::size_t limit = seq.isString() ? MaxCollectionSize : MaxListItems;
            if (unit != 0 && n > limit / unit)
                return limitAt(e.pos, "repeated sequence is too large");
            if (seq.isString()) {
                if (unit == 1)
                    return Value(std::string(n, seq.asString()[0]));
                std::string out;
                out.reserve(unit * n);
                for (std::size_t i = 0; i < n; ++i)
                    out += seq.asString();
                return Value(std::move(out));
            }
            ValueList out;
            for (std::size_t i = 0; i < n; ++i)
                out.insert(out.end(), seq.asList().begin(), seq.asList().end());
            return Value(std::move(out));
        }
        case BinaryOp::Div:
            if (!numbers)
                return unsupported("/");
            if (right.asNumber() == 0)
                return errorAt(e.pos, "division by zero");
            return Value(left.asNumber() / right.asNumber());
        case BinaryOp::FloorDiv:
        case BinaryOp::Mod: {
            if (!numbers)
                return unsupported(e.op == BinaryOp::Mod ? "%" : "//");
            if (right.asNumber() == 0)
                return errorAt(e.pos, e.op == BinaryOp::Mod ? "modulo by zero" : "division by zero");
            if (ints) {
                // Python rounds towards negative infinity; the remainder takes the divisor's sign.
                const std::int64_t a = asInt(left);
                const std::int64_t b = asInt(right);
                if (a == INT64_MIN && b == -1)
                    return e.op == BinaryOp::Mod ? Value(std::int64_t(0)) : Value(a);
                std::int64_t q = a / b;
                std::int64_t r = a % b;
                if (r != 0 && ((r < 0) != (b < 0))) {
                    --q;
                    r += b;
                }
                return e.op == BinaryOp::Mod ? Value(r) : Value(q);
            }
            const double a = left.asNumber();
            const double b = right.asNumber();
            const double q = std::floor(a / b);
            return e.op == BinaryOp::Mod ? Value(a - q * b) : Value(q);
        }
        case BinaryOp::Pow: {
            if (!numbers)
                return unsupported("**");
            if (ints && asInt(right) >= 0) {
                // Square-and-multiply: at most 63 steps whatever the exponent.
                std::int64_t result = 1;
                std::int64_t base = asInt(left);
                for (std::int64_t exp = asInt(right); exp > 0;) {
                    if ((exp & 1) && mulOverflows(result, base, result))
                        return errorAt(e.pos, "integer overflow");
                    exp >>= 1;
                    if (exp > 0 && mulOverflows(base, base, base))
                        return errorAt(e.pos, "integer overflow");
                }
                return Value(result);
            }
            return Value(std::pow(left.asNumber(), right.asNumber()));
        }
        case BinaryOp::Concat: {
            std::string text = left.str();
            const std::string tail = right.str();
            if (tooLarge(text.size() + tail.size()))
                return limitAt(e.pos, "string is too large");
            return Value(text + tail);
        }
        case BinaryOp::Eq:
            return Value(left.equals(right));
        case BinaryOp::Ne:
            return Value(!left.equals(right));
        case BinaryOp::Lt:
        case BinaryOp::Le:
        case BinaryOp::Gt:
        case BinaryOp::Ge: {
            const auto c = compareValues(left, right);
            if (!c)
                return errorAt(e.pos, "cannot compare " + left.typeName() + " with " + right.typeName());
            const bool r = e.op == BinaryOp::Lt ? *c < 0 : e.op == BinaryOp::Le ? *c <= 0 : e.op == BinaryOp::Gt ? *c > 0 : *c >= 0;
            return Value(r);
        }
        case BinaryOp::In:
        case BinaryOp::NotIn: {
            CallArgs args;
            args.positional.push_back(right);
            auto r = applyTest("in", left, args);
            if (!r)
                return positioned(e.pos, r.status());
            return Value(*r == (e.op == BinaryOp::In));
        }
        case BinaryOp::And:
        case BinaryOp::Or:
            break;
        }
        return Value();
    }

    RenderLimits m_limits;
    std::vector<ValueDict> m_scopes;
    std::string m_out;
    /// Every namespace() made, by its dict: to know them, and kept to break cycles at the end.
    std::unordered_map<const ValueDict*, Value> m_namespaces;
    std::uint64_t m_iterations = 0;
    int m_callDepth = 0;
    bool m_positioned = false;
};

#undef JINJA_ASSIGN_OR_RETURN

} // namespace

Result<std::string> render(const Body& body, const ValueDict& globals, const RenderLimits& limits)
{
    RenderBudget budget(limits);
    try {
        return Interpreter(globals, limits).run(body);
    } catch (const RenderAborted& e) {
        return Result<std::string>(ErrorCode::LimitExceeded, e.what());
    } catch (const std::bad_alloc&) {
        // Every value is counted, so this means the machine itself is short of memory.
        return Result<std::string>(ErrorCode::OutOfMemory, "not enough memory to render the chat template");
    } catch (const std::length_error&) {
        return Result<std::string>(ErrorCode::LimitExceeded, "the template builds a value that is too large");
    }
}

} // namespace hearth::jinja
