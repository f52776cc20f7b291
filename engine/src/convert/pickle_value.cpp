// SPDX-License-Identifier: MIT
#include "convert/pickle_value.h"

#include <cstdint>
#include <map>

namespace hearth::convert {

struct PickleValue::Container {
    Items items;
    DictItems dictItems;
    // Positions of str and int keys in dictItems, so that SETITEMS stays linear.
    std::map<std::string, std::size_t> stringKeys;
    std::map<std::int64_t, std::size_t> intKeys;
};

namespace {

const std::string& emptyString()
{
    static const std::string empty;
    return empty;
}

} // namespace

PickleValue PickleValue::boolean(bool value)
{
    PickleValue v;
    v.m_kind = Kind::Bool;
    v.m_int = value ? 1 : 0;
    return v;
}

PickleValue PickleValue::integer(std::int64_t value)
{
    PickleValue v;
    v.m_kind = Kind::Int;
    v.m_int = value;
    return v;
}

PickleValue PickleValue::floating(double value)
{
    PickleValue v;
    v.m_kind = Kind::Float;
    v.m_float = value;
    return v;
}

PickleValue PickleValue::string(std::string value)
{
    PickleValue v;
    v.m_kind = Kind::String;
    v.m_text = std::make_shared<const std::string>(std::move(value));
    return v;
}

PickleValue PickleValue::bytes(std::string value)
{
    PickleValue v = string(std::move(value));
    v.m_kind = Kind::Bytes;
    return v;
}

PickleValue PickleValue::list(Items items)
{
    PickleValue v;
    v.m_kind = Kind::List;
    v.m_container = std::make_shared<Container>();
    v.m_container->items = std::move(items);
    return v;
}

PickleValue PickleValue::tuple(Items items)
{
    PickleValue v = list(std::move(items));
    v.m_kind = Kind::Tuple;
    return v;
}

PickleValue PickleValue::dict()
{
    PickleValue v;
    v.m_kind = Kind::Dict;
    v.m_container = std::make_shared<Container>();
    return v;
}

PickleValue PickleValue::global(PickleGlobal global, ElementType type, std::string qualifiedName)
{
    PickleValue v = string(std::move(qualifiedName));
    v.m_kind = Kind::Global;
    v.m_global = global;
    v.m_elementType = type;
    return v;
}

PickleValue PickleValue::storage(std::shared_ptr<const PickleStorage> storage)
{
    PickleValue v;
    v.m_kind = Kind::Storage;
    v.m_storage = std::move(storage);
    return v;
}

PickleValue PickleValue::tensor(std::shared_ptr<const PickleTensor> tensor)
{
    PickleValue v;
    v.m_kind = Kind::Tensor;
    v.m_tensor = std::move(tensor);
    return v;
}

const std::string& PickleValue::text() const
{
    return m_text ? *m_text : emptyString();
}

const PickleValue::Items& PickleValue::items() const
{
    static const Items empty;
    return (m_kind == Kind::List || m_kind == Kind::Tuple) && m_container ? m_container->items : empty;
}

const PickleValue::DictItems& PickleValue::dictItems() const
{
    static const DictItems empty;
    return m_kind == Kind::Dict && m_container ? m_container->dictItems : empty;
}

const PickleValue* PickleValue::find(std::string_view key) const
{
    if (m_kind != Kind::Dict || !m_container) {
        return nullptr;
    }
    const auto it = m_container->stringKeys.find(std::string(key));
    return it == m_container->stringKeys.end() ? nullptr : &m_container->dictItems[it->second].second;
}

std::string_view PickleValue::typeName() const
{
    switch (m_kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Global: return "global";
    case Kind::Storage: return "storage";
    case Kind::Tensor: return "tensor";
    }
    return "?";
}

void PickleValue::append(PickleValue value)
{
    if (m_container) {
        m_container->items.push_back(std::move(value));
    }
}

void PickleValue::setItem(PickleValue key, PickleValue value)
{
    if (!m_container) {
        return;
    }
    Container& c = *m_container;
    if (key.m_kind == Kind::String) {
        const auto [it, inserted] = c.stringKeys.emplace(key.text(), c.dictItems.size());
        if (!inserted) {
            c.dictItems[it->second].second = std::move(value);
            return;
        }
    } else if (key.m_kind == Kind::Int || key.m_kind == Kind::Bool) {
        const auto [it, inserted] = c.intKeys.emplace(key.m_int, c.dictItems.size());
        if (!inserted) {
            c.dictItems[it->second].second = std::move(value);
            return;
        }
    }
    c.dictItems.emplace_back(std::move(key), std::move(value));
}

void PickleValue::clearContainer()
{
    if (m_container) {
        m_container->items.clear();
        m_container->dictItems.clear();
        m_container->stringKeys.clear();
        m_container->intKeys.clear();
    }
}

const void* PickleValue::containerIdentity() const
{
    return m_container.get();
}

} // namespace hearth::convert
