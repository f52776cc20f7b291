// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// The syntax tree the Jinja parser builds and the interpreter walks.

#include "chat/jinja_lexer.h"
#include "chat/jinja_value.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hearth::jinja {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

/// Unevaluated arguments: f(a, b, key=c), x|filter(a, key=c), x is test(a).
struct ArgExprs {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> named;
};

enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Concat, Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, And, Or };
enum class UnaryOp { Not, Neg, Pos };

struct Expr {
    enum class Kind { Literal, Name, List, Dict, Attribute, Subscript, Slice, Call, Unary, Binary, Conditional, Filter, Test };

    Expr(Kind k, SourcePos p) : kind(k), pos(p) {}
    virtual ~Expr() = default;

    Kind kind;
    SourcePos pos;
};

struct LiteralExpr : Expr {
    LiteralExpr(SourcePos p, Value v) : Expr(Kind::Literal, p), value(std::move(v)) {}
    Value value;
};

struct NameExpr : Expr {
    NameExpr(SourcePos p, std::string n) : Expr(Kind::Name, p), name(std::move(n)) {}
    std::string name;
};

/// [a, b] and tuples (a, b): both evaluate to a list.
struct ListExpr : Expr {
    explicit ListExpr(SourcePos p) : Expr(Kind::List, p) {}
    std::vector<ExprPtr> items;
};

struct DictExpr : Expr {
    explicit DictExpr(SourcePos p) : Expr(Kind::Dict, p) {}
    std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct AttributeExpr : Expr {
    AttributeExpr(SourcePos p, ExprPtr o, std::string n) : Expr(Kind::Attribute, p), object(std::move(o)), name(std::move(n)) {}
    ExprPtr object;
    std::string name;
};

struct SubscriptExpr : Expr {
    SubscriptExpr(SourcePos p, ExprPtr o, ExprPtr i) : Expr(Kind::Subscript, p), object(std::move(o)), index(std::move(i)) {}
    ExprPtr object;
    ExprPtr index;
};

/// object[start:stop:step]; absent parts are null.
struct SliceExpr : Expr {
    SliceExpr(SourcePos p, ExprPtr o) : Expr(Kind::Slice, p), object(std::move(o)) {}
    ExprPtr object;
    ExprPtr start;
    ExprPtr stop;
    ExprPtr step;
};

struct CallExpr : Expr {
    CallExpr(SourcePos p, ExprPtr c) : Expr(Kind::Call, p), callee(std::move(c)) {}
    ExprPtr callee;
    ArgExprs args;
};

struct UnaryExpr : Expr {
    UnaryExpr(SourcePos p, UnaryOp o, ExprPtr e) : Expr(Kind::Unary, p), op(o), operand(std::move(e)) {}
    UnaryOp op;
    ExprPtr operand;
};

struct BinaryExpr : Expr {
    BinaryExpr(SourcePos p, BinaryOp o, ExprPtr l, ExprPtr r) : Expr(Kind::Binary, p), op(o), left(std::move(l)), right(std::move(r)) {}
    BinaryOp op;
    ExprPtr left;
    ExprPtr right;
};

/// a if condition else b; without else, b is undefined.
struct ConditionalExpr : Expr {
    explicit ConditionalExpr(SourcePos p) : Expr(Kind::Conditional, p) {}
    ExprPtr condition;
    ExprPtr then;
    ExprPtr otherwise;
};

struct FilterExpr : Expr {
    FilterExpr(SourcePos p, ExprPtr o, std::string n) : Expr(Kind::Filter, p), operand(std::move(o)), name(std::move(n)) {}
    ExprPtr operand;
    std::string name;
    ArgExprs args;
};

/// operand is [not] name(args)
struct TestExpr : Expr {
    TestExpr(SourcePos p, ExprPtr o, std::string n) : Expr(Kind::Test, p), operand(std::move(o)), name(std::move(n)) {}
    ExprPtr operand;
    std::string name;
    ArgExprs args;
    bool negated = false;
};

struct Stmt {
    enum class Kind { Text, Output, If, For, Set, Macro, Break, Continue, FilterBlock };

    Stmt(Kind k, SourcePos p) : kind(k), pos(p) {}
    virtual ~Stmt() = default;

    Kind kind;
    SourcePos pos;
};

struct TextStmt : Stmt {
    TextStmt(SourcePos p, std::string t) : Stmt(Kind::Text, p), text(std::move(t)) {}
    std::string text;
};

struct OutputStmt : Stmt {
    OutputStmt(SourcePos p, ExprPtr e) : Stmt(Kind::Output, p), expr(std::move(e)) {}
    ExprPtr expr;
};

struct IfStmt : Stmt {
    explicit IfStmt(SourcePos p) : Stmt(Kind::If, p) {}
    std::vector<std::pair<ExprPtr, Body>> branches; ///< if and elifs
    Body otherwise;
};

struct ForStmt : Stmt {
    explicit ForStmt(SourcePos p) : Stmt(Kind::For, p) {}
    std::vector<std::string> targets; ///< one name, or several to unpack (for k, v in d.items())
    ExprPtr iterable;
    ExprPtr filter; ///< for x in xs if cond; may be null
    Body body;
    Body otherwise; ///< rendered when nothing was iterated
};

/// set x = v | set a, b = v | set ns.attr = v | set x %}...{% endset
struct SetStmt : Stmt {
    explicit SetStmt(SourcePos p) : Stmt(Kind::Set, p) {}
    std::vector<std::string> targets;
    ExprPtr object; ///< for ns.attr = v: the namespace expression; targets[0] is the attribute
    ExprPtr value;  ///< null for the block form
    Body body;
};

struct MacroStmt : Stmt {
    explicit MacroStmt(SourcePos p) : Stmt(Kind::Macro, p) {}
    std::string name;
    std::vector<std::pair<std::string, ExprPtr>> params; ///< default may be null
    Body body;
};

/// {% filter name(args) %}...{% endfilter %}
struct FilterBlockStmt : Stmt {
    explicit FilterBlockStmt(SourcePos p) : Stmt(Kind::FilterBlock, p) {}
    std::string name;
    ArgExprs args;
    Body body;
};

struct LoopControlStmt : Stmt {
    LoopControlStmt(SourcePos p, bool isBreak) : Stmt(isBreak ? Kind::Break : Kind::Continue, p) {}
};

} // namespace hearth::jinja
