// SPDX-License-Identifier: MIT
#include "chat/jinja_parser.h"

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace hearth::jinja {

namespace {

using Type = LexToken::Type;

// Deeper nesting than any real template, shallow enough that the recursive descent (and the
// interpreter walking the tree) cannot exhaust the stack on hostile input.
constexpr int MaxNesting = 256;

#define JINJA_ASSIGN_OR_RETURN(var, expr)                                                                    \
    auto var##Result_ = (expr);                                                                              \
    if (!var##Result_.ok())                                                                                  \
        return var##Result_.status();                                                                        \
    auto var = std::move(var##Result_).value()

class Parser {
public:
    explicit Parser(const std::vector<LexToken>& tokens)
        : m_tokens(tokens)
    {
    }

    Result<Body> parseTemplate()
    {
        std::string which;
        return parseBody({}, which, {});
    }

private:
    // Counts recursion depth for the lifetime of one parse function.
    struct DepthGuard {
        explicit DepthGuard(int& depth) : m_depth(++depth) {}
        ~DepthGuard() { --m_depth; }
        DepthGuard(const DepthGuard&) = delete;
        DepthGuard& operator=(const DepthGuard&) = delete;
        [[nodiscard]] bool tooDeep() const { return m_depth > MaxNesting; }
        int& m_depth;
    };

    // Left-deep chains (a + b + c ..., x.a.b ..., x|f|g ...) deepen the tree without recursing
    // here; this counts each link so the tree depth stays bounded all the same.
    struct ChainGuard {
        explicit ChainGuard(int& depth) : m_depth(depth) {}
        ~ChainGuard() { m_depth -= m_extra; }
        ChainGuard(const ChainGuard&) = delete;
        ChainGuard& operator=(const ChainGuard&) = delete;
        [[nodiscard]] bool grow()
        {
            ++m_depth;
            ++m_extra;
            return m_depth <= MaxNesting;
        }
        int& m_depth;
        int m_extra = 0;
    };

    Status chainTooLong() const { return errorAt(peek().pos, "expression is nested too deeply"); }

    const LexToken& peek(std::size_t ahead = 0) const
    {
        const std::size_t i = std::min(m_pos + ahead, m_tokens.size() - 1);
        return m_tokens[i];
    }
    const LexToken& next() { return m_tokens[std::min(m_pos++, m_tokens.size() - 1)]; }
    bool isOp(std::string_view op, std::size_t ahead = 0) const
    {
        return peek(ahead).type == Type::Operator && peek(ahead).text == op;
    }
    bool isName(std::string_view name, std::size_t ahead = 0) const
    {
        return peek(ahead).type == Type::Name && peek(ahead).text == name;
    }

    static Status errorAt(SourcePos pos, const std::string& message) { return {ErrorCode::InvalidArgument, describe(pos) + message}; }

    static std::string describeToken(const LexToken& t)
    {
        switch (t.type) {
        case Type::Text:
            return "text";
        case Type::VarBegin:
            return "'{{'";
        case Type::VarEnd:
            return "'}}'";
        case Type::BlockBegin:
            return "'{%'";
        case Type::BlockEnd:
            return "'%}'";
        case Type::String:
            return "a string";
        case Type::Integer:
        case Type::Float:
            return "'" + t.text + "'";
        case Type::Name:
        case Type::Operator:
            return "'" + t.text + "'";
        case Type::End:
            return "the end of the template";
        }
        return "a token";
    }

    Status unexpected(const std::string& expected) const
    {
        return errorAt(peek().pos, "expected " + expected + ", found " + describeToken(peek()));
    }

    Status expectOp(std::string_view op)
    {
        if (!isOp(op))
            return unexpected(std::string("'").append(op).append("'"));
        ++m_pos;
        return {};
    }

    Status expectType(Type type, const char* what)
    {
        if (peek().type != type)
            return unexpected(what);
        ++m_pos;
        return {};
    }

    Result<std::string> expectName()
    {
        if (peek().type != Type::Name)
            return unexpected("a name");
        return next().text;
    }

    // Parses statements until a block tag whose keyword is in @p terminators; the tag's '{%' and
    // keyword are consumed and the keyword stored in @p which. @p opener locates the error when the
    // template ends first.
    Result<Body> parseBody(std::initializer_list<std::string_view> terminators, std::string& which, SourcePos opener,
                           const char* openerName = "")
    {
        DepthGuard guard(m_depth);
        if (guard.tooDeep())
            return errorAt(peek().pos, "blocks are nested too deeply");
        Body body;
        while (true) {
            const LexToken& t = peek();
            switch (t.type) {
            case Type::End:
                if (terminators.size() == 0)
                    return body;
                return errorAt(opener, std::string("'") + openerName + "' is never closed (expected '"
                                           + std::string(*(terminators.end() - 1)) + "')");
            case Type::Text:
                body.push_back(std::make_unique<TextStmt>(t.pos, t.text));
                ++m_pos;
                break;
            case Type::VarBegin: {
                ++m_pos;
                JINJA_ASSIGN_OR_RETURN(expr, parseExpression());
                HEARTH_TRY(expectType(Type::VarEnd, "'}}'"));
                body.push_back(std::make_unique<OutputStmt>(t.pos, std::move(expr)));
                break;
            }
            case Type::BlockBegin: {
                const LexToken& keyword = peek(1);
                if (keyword.type != Type::Name)
                    return errorAt(keyword.pos, "expected a statement name after '{%'");
                for (const auto term : terminators) {
                    if (keyword.text == term) {
                        which = keyword.text;
                        m_pos += 2;
                        return body;
                    }
                }
                m_pos += 2;
                JINJA_ASSIGN_OR_RETURN(stmt, parseStatement(keyword));
                if (stmt)
                    body.push_back(std::move(stmt));
                break;
            }
            default:
                return unexpected("text or a tag");
            }
        }
    }

    Result<StmtPtr> parseStatement(const LexToken& keyword)
    {
        const std::string& k = keyword.text;
        const SourcePos pos = keyword.pos;
        if (k == "if")
            return parseIf(pos);
        if (k == "for")
            return parseFor(pos);
        if (k == "set")
            return parseSet(pos);
        if (k == "macro")
            return parseMacro(pos);
        if (k == "filter")
            return parseFilterBlock(pos);
        if (k == "break" || k == "continue") {
            if (m_loopDepth == 0)
                return errorAt(pos, "'" + k + "' outside of a loop");
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            return StmtPtr(std::make_unique<LoopControlStmt>(pos, k == "break"));
        }
        if (k == "generation") {
            // Hugging Face's marker around assistant text for training masks; renders its body.
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            std::string which;
            JINJA_ASSIGN_OR_RETURN(body, parseBody({"endgeneration"}, which, pos, "generation"));
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            auto stmt = std::make_unique<IfStmt>(pos);
            stmt->branches.emplace_back(std::make_unique<LiteralExpr>(pos, Value(true)), std::move(body));
            return StmtPtr(std::move(stmt));
        }
        static constexpr std::string_view closers[] = {"endif", "endfor", "else", "elif", "endset", "endmacro", "endfilter",
                                                       "endgeneration", "endraw"};
        for (const auto c : closers) {
            if (k == c)
                return errorAt(pos, "unexpected '" + k + "' without a matching opening tag");
        }
        return errorAt(pos, "unknown or unsupported tag '" + k + "'");
    }

    Result<StmtPtr> parseIf(SourcePos pos)
    {
        auto stmt = std::make_unique<IfStmt>(pos);
        std::string which = "if";
        while (which == "if" || which == "elif") {
            JINJA_ASSIGN_OR_RETURN(condition, parseExpression());
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            JINJA_ASSIGN_OR_RETURN(body, parseBody({"elif", "else", "endif"}, which, pos, "if"));
            stmt->branches.emplace_back(std::move(condition), std::move(body));
        }
        if (which == "else") {
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            JINJA_ASSIGN_OR_RETURN(body, parseBody({"endif"}, which, pos, "if"));
            stmt->otherwise = std::move(body);
        }
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        return StmtPtr(std::move(stmt));
    }

    Result<StmtPtr> parseFor(SourcePos pos)
    {
        auto stmt = std::make_unique<ForStmt>(pos);
        const bool parenthesised = isOp("(");
        if (parenthesised)
            ++m_pos;
        do {
            JINJA_ASSIGN_OR_RETURN(name, expectName());
            stmt->targets.push_back(std::move(name));
        } while (isOp(",") && (++m_pos, true));
        if (parenthesised)
            HEARTH_TRY(expectOp(")"));
        if (!isName("in"))
            return unexpected("'in'");
        ++m_pos;
        // No ternary here: "for x in xs if cond" filters the loop.
        JINJA_ASSIGN_OR_RETURN(iterable, parseExpression(false));
        stmt->iterable = std::move(iterable);
        if (isName("if")) {
            ++m_pos;
            JINJA_ASSIGN_OR_RETURN(filter, parseExpression(false));
            stmt->filter = std::move(filter);
        }
        if (isName("recursive"))
            return errorAt(peek().pos, "recursive loops are not supported");
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        ++m_loopDepth;
        std::string which;
        auto body = parseBody({"else", "endfor"}, which, pos, "for");
        --m_loopDepth;
        if (!body)
            return body.status();
        stmt->body = std::move(body).value();
        if (which == "else") {
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            JINJA_ASSIGN_OR_RETURN(otherwise, parseBody({"endfor"}, which, pos, "for"));
            stmt->otherwise = std::move(otherwise);
        }
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        return StmtPtr(std::move(stmt));
    }

    Result<StmtPtr> parseSet(SourcePos pos)
    {
        auto stmt = std::make_unique<SetStmt>(pos);
        JINJA_ASSIGN_OR_RETURN(first, expectName());
        if (isOp(".")) {
            // ns.attr = value
            stmt->object = std::make_unique<NameExpr>(pos, first);
            ++m_pos;
            JINJA_ASSIGN_OR_RETURN(attr, expectName());
            stmt->targets.push_back(std::move(attr));
        } else {
            stmt->targets.push_back(std::move(first));
            while (isOp(",")) {
                ++m_pos;
                JINJA_ASSIGN_OR_RETURN(name, expectName());
                stmt->targets.push_back(std::move(name));
            }
        }
        if (isOp("=")) {
            ++m_pos;
            JINJA_ASSIGN_OR_RETURN(value, parseTuple());
            stmt->value = std::move(value);
            HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
            return StmtPtr(std::move(stmt));
        }
        if (stmt->object || stmt->targets.size() != 1)
            return unexpected("'='");
        HEARTH_TRY(expectType(Type::BlockEnd, "'=' or '%}'"));
        std::string which;
        JINJA_ASSIGN_OR_RETURN(body, parseBody({"endset"}, which, pos, "set"));
        stmt->body = std::move(body);
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        return StmtPtr(std::move(stmt));
    }

    Result<StmtPtr> parseMacro(SourcePos pos)
    {
        auto stmt = std::make_unique<MacroStmt>(pos);
        JINJA_ASSIGN_OR_RETURN(name, expectName());
        stmt->name = std::move(name);
        HEARTH_TRY(expectOp("("));
        while (!isOp(")")) {
            JINJA_ASSIGN_OR_RETURN(param, expectName());
            ExprPtr defaultValue;
            if (isOp("=")) {
                ++m_pos;
                JINJA_ASSIGN_OR_RETURN(value, parseExpression());
                defaultValue = std::move(value);
            }
            stmt->params.emplace_back(std::move(param), std::move(defaultValue));
            if (!isOp(","))
                break;
            ++m_pos;
        }
        HEARTH_TRY(expectOp(")"));
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        const int loopDepth = m_loopDepth;
        m_loopDepth = 0; // a macro body is not inside the caller's loop
        std::string which;
        auto body = parseBody({"endmacro"}, which, pos, "macro");
        m_loopDepth = loopDepth;
        if (!body)
            return body.status();
        stmt->body = std::move(body).value();
        if (peek().type == Type::Name && peek().text == stmt->name)
            ++m_pos; // {% endmacro name %}
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        return StmtPtr(std::move(stmt));
    }

    Result<StmtPtr> parseFilterBlock(SourcePos pos)
    {
        auto stmt = std::make_unique<FilterBlockStmt>(pos);
        JINJA_ASSIGN_OR_RETURN(name, expectName());
        stmt->name = std::move(name);
        if (isOp("(")) {
            JINJA_ASSIGN_OR_RETURN(args, parseArgs());
            stmt->args = std::move(args);
        }
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        std::string which;
        JINJA_ASSIGN_OR_RETURN(body, parseBody({"endfilter"}, which, pos, "filter"));
        stmt->body = std::move(body);
        HEARTH_TRY(expectType(Type::BlockEnd, "'%}'"));
        return StmtPtr(std::move(stmt));
    }

    // expr, or a bare tuple "a, b" (set a, b = 1, 2)
    Result<ExprPtr> parseTuple()
    {
        const SourcePos pos = peek().pos;
        JINJA_ASSIGN_OR_RETURN(first, parseExpression());
        if (!isOp(","))
            return first;
        auto tuple = std::make_unique<ListExpr>(pos);
        tuple->items.push_back(std::move(first));
        while (isOp(",")) {
            ++m_pos;
            JINJA_ASSIGN_OR_RETURN(item, parseExpression());
            tuple->items.push_back(std::move(item));
        }
        return ExprPtr(std::move(tuple));
    }

    Result<ExprPtr> parseExpression(bool allowConditional = true)
    {
        DepthGuard guard(m_depth);
        if (guard.tooDeep())
            return errorAt(peek().pos, "expression is nested too deeply");
        JINJA_ASSIGN_OR_RETURN(left, parseOr());
        if (!allowConditional || !isName("if"))
            return left;
        auto cond = std::make_unique<ConditionalExpr>(next().pos);
        JINJA_ASSIGN_OR_RETURN(condition, parseOr());
        cond->condition = std::move(condition);
        cond->then = std::move(left);
        if (isName("else")) {
            ++m_pos;
            JINJA_ASSIGN_OR_RETURN(otherwise, parseExpression());
            cond->otherwise = std::move(otherwise);
        }
        return ExprPtr(std::move(cond));
    }

    Result<ExprPtr> parseOr()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parseAnd());
        while (isName("or")) {
            if (!chain.grow())
                return chainTooLong();
            const SourcePos pos = next().pos;
            JINJA_ASSIGN_OR_RETURN(right, parseAnd());
            left = std::make_unique<BinaryExpr>(pos, BinaryOp::Or, std::move(left), std::move(right));
        }
        return left;
    }

    Result<ExprPtr> parseAnd()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parseNot());
        while (isName("and")) {
            if (!chain.grow())
                return chainTooLong();
            const SourcePos pos = next().pos;
            JINJA_ASSIGN_OR_RETURN(right, parseNot());
            left = std::make_unique<BinaryExpr>(pos, BinaryOp::And, std::move(left), std::move(right));
        }
        return left;
    }

    Result<ExprPtr> parseNot()
    {
        if (isName("not")) {
            DepthGuard guard(m_depth);
            if (guard.tooDeep())
                return errorAt(peek().pos, "expression is nested too deeply");
            const SourcePos pos = next().pos;
            JINJA_ASSIGN_OR_RETURN(operand, parseNot());
            return ExprPtr(std::make_unique<UnaryExpr>(pos, UnaryOp::Not, std::move(operand)));
        }
        return parseCompare();
    }

    Result<ExprPtr> parseCompare()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parseMath1());
        while (true) {
            if (!chain.grow())
                return chainTooLong();
            BinaryOp op;
            const SourcePos pos = peek().pos;
            if (isOp("=="))
                op = BinaryOp::Eq;
            else if (isOp("!="))
                op = BinaryOp::Ne;
            else if (isOp("<"))
                op = BinaryOp::Lt;
            else if (isOp("<="))
                op = BinaryOp::Le;
            else if (isOp(">"))
                op = BinaryOp::Gt;
            else if (isOp(">="))
                op = BinaryOp::Ge;
            else if (isName("in"))
                op = BinaryOp::In;
            else if (isName("not") && isName("in", 1)) {
                op = BinaryOp::NotIn;
                ++m_pos;
            } else
                return left;
            ++m_pos;
            JINJA_ASSIGN_OR_RETURN(right, parseMath1());
            left = std::make_unique<BinaryExpr>(pos, op, std::move(left), std::move(right));
        }
    }

    Result<ExprPtr> parseMath1()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parseConcat());
        while (isOp("+") || isOp("-")) {
            if (!chain.grow())
                return chainTooLong();
            const LexToken& t = next();
            JINJA_ASSIGN_OR_RETURN(right, parseConcat());
            left = std::make_unique<BinaryExpr>(t.pos, t.text == "+" ? BinaryOp::Add : BinaryOp::Sub, std::move(left), std::move(right));
        }
        return left;
    }

    Result<ExprPtr> parseConcat()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parseMath2());
        while (isOp("~")) {
            if (!chain.grow())
                return chainTooLong();
            const SourcePos pos = next().pos;
            JINJA_ASSIGN_OR_RETURN(right, parseMath2());
            left = std::make_unique<BinaryExpr>(pos, BinaryOp::Concat, std::move(left), std::move(right));
        }
        return left;
    }

    Result<ExprPtr> parseMath2()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parsePow());
        while (isOp("*") || isOp("/") || isOp("//") || isOp("%")) {
            if (!chain.grow())
                return chainTooLong();
            const LexToken& t = next();
            const BinaryOp op = t.text == "*" ? BinaryOp::Mul : t.text == "/" ? BinaryOp::Div : t.text == "//" ? BinaryOp::FloorDiv : BinaryOp::Mod;
            JINJA_ASSIGN_OR_RETURN(right, parsePow());
            left = std::make_unique<BinaryExpr>(t.pos, op, std::move(left), std::move(right));
        }
        return left;
    }

    Result<ExprPtr> parsePow()
    {
        ChainGuard chain(m_depth);
        JINJA_ASSIGN_OR_RETURN(left, parseUnary());
        while (isOp("**")) {
            if (!chain.grow())
                return chainTooLong();
            const SourcePos pos = next().pos;
            JINJA_ASSIGN_OR_RETURN(right, parseUnary());
            left = std::make_unique<BinaryExpr>(pos, BinaryOp::Pow, std::move(left), std::move(right));
        }
        return left;
    }

    Result<ExprPtr> parseUnary()
    {
        DepthGuard guard(m_depth);
        if (guard.tooDeep())
            return errorAt(peek().pos, "expression is nested too deeply");
        ExprPtr node;
        if (isOp("-") || isOp("+")) {
            const LexToken& t = next();
            JINJA_ASSIGN_OR_RETURN(operand, parseUnary());
            node = std::make_unique<UnaryExpr>(t.pos, t.text == "-" ? UnaryOp::Neg : UnaryOp::Pos, std::move(operand));
        } else {
            JINJA_ASSIGN_OR_RETURN(primary, parsePrimary());
            JINJA_ASSIGN_OR_RETURN(postfix, parsePostfix(std::move(primary)));
            node = std::move(postfix);
        }
        return parseFiltersAndTests(std::move(node));
    }

    Result<ExprPtr> parsePrimary()
    {
        const LexToken& t = peek();
        switch (t.type) {
        case Type::Name: {
            ++m_pos;
            if (t.text == "true" || t.text == "True")
                return ExprPtr(std::make_unique<LiteralExpr>(t.pos, Value(true)));
            if (t.text == "false" || t.text == "False")
                return ExprPtr(std::make_unique<LiteralExpr>(t.pos, Value(false)));
            if (t.text == "none" || t.text == "None")
                return ExprPtr(std::make_unique<LiteralExpr>(t.pos, Value::none()));
            return ExprPtr(std::make_unique<NameExpr>(t.pos, t.text));
        }
        case Type::String: {
            std::string text;
            while (peek().type == Type::String) // adjacent literals concatenate, as in Python
                text += next().text;
            return ExprPtr(std::make_unique<LiteralExpr>(t.pos, Value(std::move(text))));
        }
        case Type::Integer: {
            ++m_pos;
            std::int64_t v = 0;
            const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
            if (r.ec != std::errc())
                return errorAt(t.pos, "integer literal out of range");
            return ExprPtr(std::make_unique<LiteralExpr>(t.pos, Value(v)));
        }
        case Type::Float: {
            ++m_pos;
            double v = 0;
            const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
            if (r.ec != std::errc())
                return errorAt(t.pos, "invalid number literal");
            return ExprPtr(std::make_unique<LiteralExpr>(t.pos, Value(v)));
        }
        case Type::Operator:
            if (t.text == "(")
                return parseParenthesised();
            if (t.text == "[")
                return parseList();
            if (t.text == "{")
                return parseDict();
            [[fallthrough]];
        default:
            return unexpected("an expression");
        }
    }

    Result<ExprPtr> parseParenthesised()
    {
        const SourcePos pos = next().pos;
        if (isOp(")")) {
            ++m_pos;
            return ExprPtr(std::make_unique<ListExpr>(pos)); // empty tuple
        }
        JINJA_ASSIGN_OR_RETURN(first, parseExpression());
        if (!isOp(",")) {
            HEARTH_TRY(expectOp(")"));
            return first;
        }
        auto tuple = std::make_unique<ListExpr>(pos);
        tuple->items.push_back(std::move(first));
        while (isOp(",")) {
            ++m_pos;
            if (isOp(")"))
                break;
            JINJA_ASSIGN_OR_RETURN(item, parseExpression());
            tuple->items.push_back(std::move(item));
        }
        HEARTH_TRY(expectOp(")"));
        return ExprPtr(std::move(tuple));
    }

    Result<ExprPtr> parseList()
    {
        auto list = std::make_unique<ListExpr>(next().pos);
        while (!isOp("]")) {
            JINJA_ASSIGN_OR_RETURN(item, parseExpression());
            list->items.push_back(std::move(item));
            if (!isOp(","))
                break;
            ++m_pos;
        }
        HEARTH_TRY(expectOp("]"));
        return ExprPtr(std::move(list));
    }

    Result<ExprPtr> parseDict()
    {
        auto dict = std::make_unique<DictExpr>(next().pos);
        while (!isOp("}")) {
            JINJA_ASSIGN_OR_RETURN(key, parseExpression());
            HEARTH_TRY(expectOp(":"));
            JINJA_ASSIGN_OR_RETURN(value, parseExpression());
            dict->items.emplace_back(std::move(key), std::move(value));
            if (!isOp(","))
                break;
            ++m_pos;
        }
        HEARTH_TRY(expectOp("}"));
        return ExprPtr(std::move(dict));
    }

    Result<ExprPtr> parsePostfix(ExprPtr node)
    {
        ChainGuard chain(m_depth);
        while (true) {
            if (!chain.grow())
                return chainTooLong();
            if (isOp(".")) {
                const SourcePos pos = next().pos;
                if (peek().type != Type::Name && peek().type != Type::Integer)
                    return unexpected("an attribute name");
                node = std::make_unique<AttributeExpr>(pos, std::move(node), next().text);
            } else if (isOp("[")) {
                JINJA_ASSIGN_OR_RETURN(subscript, parseSubscript(std::move(node)));
                node = std::move(subscript);
            } else if (isOp("(")) {
                auto call = std::make_unique<CallExpr>(peek().pos, std::move(node));
                JINJA_ASSIGN_OR_RETURN(args, parseArgs());
                call->args = std::move(args);
                node = std::move(call);
            } else {
                return node;
            }
        }
    }

    Result<ExprPtr> parseSubscript(ExprPtr object)
    {
        const SourcePos pos = next().pos;
        ExprPtr start;
        if (!isOp(":")) {
            JINJA_ASSIGN_OR_RETURN(index, parseExpression());
            if (isOp("]")) {
                ++m_pos;
                return ExprPtr(std::make_unique<SubscriptExpr>(pos, std::move(object), std::move(index)));
            }
            start = std::move(index);
        }
        auto slice = std::make_unique<SliceExpr>(pos, std::move(object));
        slice->start = std::move(start);
        HEARTH_TRY(expectOp(":"));
        if (!isOp(":") && !isOp("]")) {
            JINJA_ASSIGN_OR_RETURN(stop, parseExpression());
            slice->stop = std::move(stop);
        }
        if (isOp(":")) {
            ++m_pos;
            if (!isOp("]")) {
                JINJA_ASSIGN_OR_RETURN(step, parseExpression());
                slice->step = std::move(step);
            }
        }
        HEARTH_TRY(expectOp("]"));
        return ExprPtr(std::move(slice));
    }

    Result<ArgExprs> parseArgs()
    {
        HEARTH_TRY(expectOp("("));
        ArgExprs args;
        while (!isOp(")")) {
            if (peek().type == Type::Name && isOp("=", 1)) {
                std::string name = next().text;
                ++m_pos;
                JINJA_ASSIGN_OR_RETURN(value, parseExpression());
                args.named.emplace_back(std::move(name), std::move(value));
            } else {
                if (!args.named.empty())
                    return errorAt(peek().pos, "positional argument after a keyword argument");
                JINJA_ASSIGN_OR_RETURN(value, parseExpression());
                args.positional.push_back(std::move(value));
            }
            if (!isOp(","))
                break;
            ++m_pos;
        }
        HEARTH_TRY(expectOp(")"));
        return args;
    }

    // x|filter(args)|filter and x is [not] test(args) / x is test arg
    Result<ExprPtr> parseFiltersAndTests(ExprPtr node)
    {
        ChainGuard chain(m_depth);
        while (true) {
            if (!chain.grow())
                return chainTooLong();
            if (isOp("|")) {
                const SourcePos pos = next().pos;
                JINJA_ASSIGN_OR_RETURN(name, expectName());
                auto filter = std::make_unique<FilterExpr>(pos, std::move(node), std::move(name));
                if (isOp("(")) {
                    JINJA_ASSIGN_OR_RETURN(args, parseArgs());
                    filter->args = std::move(args);
                }
                node = std::move(filter);
            } else if (isName("is")) {
                const SourcePos pos = next().pos;
                bool negated = false;
                if (isName("not")) {
                    negated = true;
                    ++m_pos;
                }
                std::string name;
                if (peek().type == Type::Name) {
                    name = next().text;
                } else if (isOp("==") || isOp("!=") || isOp("<") || isOp(">") || isOp("<=") || isOp(">=")) {
                    name = next().text;
                } else {
                    return unexpected("a test name");
                }
                auto test = std::make_unique<TestExpr>(pos, std::move(node), std::move(name));
                test->negated = negated;
                if (isOp("(")) {
                    JINJA_ASSIGN_OR_RETURN(args, parseArgs());
                    test->args = std::move(args);
                } else if (startsTestArgument()) {
                    JINJA_ASSIGN_OR_RETURN(primary, parsePrimary());
                    JINJA_ASSIGN_OR_RETURN(arg, parsePostfix(std::move(primary)));
                    test->args.positional.push_back(std::move(arg));
                }
                node = std::move(test);
            } else {
                return node;
            }
        }
    }

    // "x is divisibleby 3", "x is sameas false": one argument without parentheses.
    bool startsTestArgument() const
    {
        const LexToken& t = peek();
        if (t.type == Type::String || t.type == Type::Integer || t.type == Type::Float)
            return true;
        if (t.type != Type::Name)
            return isOp("[") || isOp("{");
        static constexpr std::string_view keywords[] = {"and", "or", "not", "in", "is", "if", "else"};
        for (const auto k : keywords) {
            if (t.text == k)
                return false;
        }
        return true;
    }

    const std::vector<LexToken>& m_tokens;
    std::size_t m_pos = 0;
    int m_depth = 0;
    int m_loopDepth = 0;
};

#undef JINJA_ASSIGN_OR_RETURN

} // namespace

Result<Body> parse(const std::vector<LexToken>& tokens)
{
    if (tokens.empty() || tokens.back().type != Type::End)
        return Result<Body>(ErrorCode::Internal, "token list does not end with an end token");
    return Parser(tokens).parseTemplate();
}

} // namespace hearth::jinja
