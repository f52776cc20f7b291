// SPDX-License-Identifier: MIT
#include "convert/unpickler.h"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

namespace hearth::convert {

namespace {

// Opcode values from CPython's Lib/pickle.py.
enum Opcode : std::uint8_t {
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    BININT = 'J',
    BININT1 = 'K',
    BININT2 = 'M',
    NONE = 'N',
    BINPERSID = 'Q',
    REDUCE = 'R',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    BINGET = 'h',
    LONG_BINGET = 'j',
    EMPTY_LIST = ']',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    PROTO = 0x80,
    NEWOBJ = 0x81,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
};

struct AllowedGlobal {
    std::string_view module;
    std::string_view name;
    PickleGlobal kind;
    ElementType type;
};

// Everything a file may name. Storage classes carry the element type of their data; dtype
// objects appear in the metadata newer torch versions write.
constexpr AllowedGlobal kAllowedGlobals[] = {
    {"collections", "OrderedDict", PickleGlobal::OrderedDict, ElementType::U8},
    {"torch._utils", "_rebuild_tensor", PickleGlobal::RebuildTensor, ElementType::U8},
    {"torch._utils", "_rebuild_tensor_v2", PickleGlobal::RebuildTensorV2, ElementType::U8},
    {"torch._utils", "_rebuild_parameter", PickleGlobal::RebuildParameter, ElementType::U8},
    {"torch", "DoubleStorage", PickleGlobal::StorageType, ElementType::F64},
    {"torch", "FloatStorage", PickleGlobal::StorageType, ElementType::F32},
    {"torch", "HalfStorage", PickleGlobal::StorageType, ElementType::F16},
    {"torch", "BFloat16Storage", PickleGlobal::StorageType, ElementType::BF16},
    {"torch", "LongStorage", PickleGlobal::StorageType, ElementType::I64},
    {"torch", "IntStorage", PickleGlobal::StorageType, ElementType::I32},
    {"torch", "ShortStorage", PickleGlobal::StorageType, ElementType::I16},
    {"torch", "CharStorage", PickleGlobal::StorageType, ElementType::I8},
    {"torch", "ByteStorage", PickleGlobal::StorageType, ElementType::U8},
    {"torch", "BoolStorage", PickleGlobal::StorageType, ElementType::Bool},
    {"torch", "UntypedStorage", PickleGlobal::StorageType, ElementType::U8},
    {"torch.storage", "UntypedStorage", PickleGlobal::StorageType, ElementType::U8},
    {"torch", "float64", PickleGlobal::DTypeObject, ElementType::F64},
    {"torch", "double", PickleGlobal::DTypeObject, ElementType::F64},
    {"torch", "float32", PickleGlobal::DTypeObject, ElementType::F32},
    {"torch", "float", PickleGlobal::DTypeObject, ElementType::F32},
    {"torch", "float16", PickleGlobal::DTypeObject, ElementType::F16},
    {"torch", "half", PickleGlobal::DTypeObject, ElementType::F16},
    {"torch", "bfloat16", PickleGlobal::DTypeObject, ElementType::BF16},
    {"torch", "int64", PickleGlobal::DTypeObject, ElementType::I64},
    {"torch", "long", PickleGlobal::DTypeObject, ElementType::I64},
    {"torch", "int32", PickleGlobal::DTypeObject, ElementType::I32},
    {"torch", "int", PickleGlobal::DTypeObject, ElementType::I32},
    {"torch", "int16", PickleGlobal::DTypeObject, ElementType::I16},
    {"torch", "short", PickleGlobal::DTypeObject, ElementType::I16},
    {"torch", "int8", PickleGlobal::DTypeObject, ElementType::I8},
    {"torch", "uint8", PickleGlobal::DTypeObject, ElementType::U8},
    {"torch", "bool", PickleGlobal::DTypeObject, ElementType::Bool},
};

constexpr std::size_t kMaxGlobalNameLength = 256;

// Keeps hostile names printable and short inside messages.
std::string printable(std::string_view text)
{
    std::string out;
    for (const char c : text.substr(0, 120)) {
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    if (text.size() > 120) {
        out += "...";
    }
    return out;
}

bool multiplyOverflows(std::int64_t a, std::int64_t b, std::int64_t& out)
{
    // Both operands are non-negative here.
    if (a != 0 && b > std::numeric_limits<std::int64_t>::max() / a) {
        return true;
    }
    out = a * b;
    return false;
}

class Unpickler {
public:
    Unpickler(std::span<const std::byte> data, const UnpicklerLimits& limits)
        : m_data(data)
        , m_limits(limits)
    {
    }

    ~Unpickler()
    {
        // Containers may form cycles (a list appended to itself through the memo) or chains
        // deep enough to overflow the stack when destroyed recursively. Emptying each one that
        // is not part of the (checked) result makes destruction flat and leak-free.
        for (PickleValue& container : m_containers) {
            if (m_reachable.count(container.containerIdentity()) == 0) {
                container.clearContainer();
            }
        }
    }

    Result<PickleValue> run()
    {
        while (true) {
            if (m_pos >= m_data.size()) {
                return error("the pickle ends without a STOP opcode");
            }
            m_opcodeOffset = m_pos;
            const auto opcode = static_cast<std::uint8_t>(m_data[m_pos++]);
            if (opcode == STOP) {
                if (m_stack.empty()) {
                    return error("STOP with an empty stack");
                }
                PickleValue result = m_stack.back();
                const Status structure = checkStructure(result);
                if (!structure.ok()) {
                    m_reachable.clear();
                    return structure;
                }
                return result;
            }
            HEARTH_TRY(step(opcode));
        }
    }

private:
    Status error(const std::string& what) const
    {
        return Status(ErrorCode::InvalidFile,
                      "invalid pickle (offset " + std::to_string(m_opcodeOffset) + "): " + what);
    }

    Status truncated() const { return error("the data is truncated"); }

    // Reads n bytes of operand; nullopt when the data ends first.
    std::optional<std::span<const std::byte>> take(std::uint64_t n)
    {
        if (n > m_data.size() - m_pos) {
            return std::nullopt;
        }
        const auto out = m_data.subspan(m_pos, static_cast<std::size_t>(n));
        m_pos += static_cast<std::size_t>(n);
        return out;
    }

    template <typename U>
    std::optional<U> readLittle()
    {
        const auto bytes = take(sizeof(U));
        if (!bytes) {
            return std::nullopt;
        }
        U value = 0;
        for (std::size_t i = 0; i < sizeof(U); ++i) {
            value |= static_cast<U>(static_cast<U>(std::to_integer<unsigned>((*bytes)[i])) << (8 * i));
        }
        return value;
    }

    Status push(PickleValue value)
    {
        if (m_stack.size() + m_marks.size() >= m_limits.maxStack) {
            return error("the stack grows past " + std::to_string(m_limits.maxStack) + " entries");
        }
        if (value.containerIdentity() != nullptr) {
            m_containers.push_back(value);
        }
        m_stack.push_back(std::move(value));
        return {};
    }

    Result<PickleValue> pop()
    {
        if (m_stack.size() <= currentMarkBase()) {
            return error("stack underflow");
        }
        PickleValue value = std::move(m_stack.back());
        m_stack.pop_back();
        return value;
    }

    std::size_t currentMarkBase() const { return m_marks.empty() ? 0 : m_marks.back(); }

    // Pops everything above the most recent MARK, and the mark.
    Result<PickleValue::Items> popMark()
    {
        if (m_marks.empty()) {
            return error("no MARK to pop to");
        }
        const std::size_t base = m_marks.back();
        m_marks.pop_back();
        PickleValue::Items items(std::make_move_iterator(m_stack.begin() + static_cast<std::ptrdiff_t>(base)),
                                 std::make_move_iterator(m_stack.end()));
        m_stack.resize(base);
        return items;
    }

    Status pushString(std::uint64_t length, bool isBytes)
    {
        const auto bytes = take(length);
        if (!bytes) {
            return truncated();
        }
        std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
        return push(isBytes ? PickleValue::bytes(std::move(text)) : PickleValue::string(std::move(text)));
    }

    Status memoPut(std::uint64_t index)
    {
        if (m_stack.size() <= currentMarkBase()) {
            return error("memo store with an empty stack");
        }
        if (m_memo.size() >= m_limits.maxMemo && m_memo.count(index) == 0) {
            return error("the memo grows past " + std::to_string(m_limits.maxMemo) + " entries");
        }
        m_memo[index] = m_stack.back();
        return {};
    }

    Status memoGet(std::uint64_t index)
    {
        const auto it = m_memo.find(index);
        if (it == m_memo.end()) {
            return error("memo index " + std::to_string(index) + " was never stored");
        }
        return push(it->second);
    }

    Status pushGlobal(std::string_view module, std::string_view name)
    {
        for (const AllowedGlobal& allowed : kAllowedGlobals) {
            if (allowed.module == module && allowed.name == name) {
                return push(PickleValue::global(allowed.kind, allowed.type, std::string(module) + "." + std::string(name)));
            }
        }
        return Status(ErrorCode::Unsupported, "refusing to load: the file calls " + printable(module) + "."
                                                  + printable(name) + ", which could run code");
    }

    Result<std::string_view> readLine()
    {
        const std::size_t start = m_pos;
        while (m_pos < m_data.size() && m_data[m_pos] != std::byte{'\n'}) {
            if (m_pos - start >= kMaxGlobalNameLength) {
                return error("a GLOBAL name is longer than " + std::to_string(kMaxGlobalNameLength) + " bytes");
            }
            ++m_pos;
        }
        if (m_pos >= m_data.size()) {
            return truncated();
        }
        const std::string_view line(reinterpret_cast<const char*>(m_data.data() + start), m_pos - start);
        ++m_pos; // '\n'
        return line;
    }

    Result<std::vector<std::int64_t>> intTuple(const PickleValue& value, std::string_view what)
    {
        if (!value.is(PickleValue::Kind::Tuple) && !value.is(PickleValue::Kind::List)) {
            return error(std::string(what) + " is a " + std::string(value.typeName()) + ", not a tuple");
        }
        if (value.items().size() > m_limits.maxTensorRank) {
            return error(std::string(what) + " has more than " + std::to_string(m_limits.maxTensorRank) + " dimensions");
        }
        std::vector<std::int64_t> out;
        for (const PickleValue& item : value.items()) {
            if (!item.is(PickleValue::Kind::Int) || item.toInt() < 0) {
                return error(std::string(what) + " holds something other than a non-negative int");
            }
            out.push_back(item.toInt());
        }
        return out;
    }

    // torch._utils._rebuild_tensor(_v2)(storage, storage_offset, size, stride, ...).
    Result<PickleValue> rebuildTensor(const PickleValue::Items& args)
    {
        if (!args[0].is(PickleValue::Kind::Storage)) {
            return error("a tensor is rebuilt from a " + std::string(args[0].typeName()) + ", not a storage");
        }
        if (!args[1].is(PickleValue::Kind::Int) || args[1].toInt() < 0) {
            return error("a tensor's storage offset is not a non-negative int");
        }
        auto shape = intTuple(args[2], "a tensor's size");
        if (!shape) {
            return shape.status();
        }
        auto strides = intTuple(args[3], "a tensor's stride");
        if (!strides) {
            return strides.status();
        }
        if (shape->size() != strides->size()) {
            return error("a tensor's size and stride have different lengths");
        }
        auto tensor = std::make_shared<PickleTensor>();
        tensor->storage = args[0].storageRef();
        tensor->storageOffset = args[1].toInt();
        tensor->shape = std::move(*shape);
        tensor->strides = std::move(*strides);

        // The view must stay inside its storage: the largest index it touches is
        // offset + sum((size - 1) * stride), unless it has no elements at all.
        std::int64_t last = tensor->storageOffset;
        bool empty = false;
        for (std::size_t d = 0; d < tensor->shape.size(); ++d) {
            empty = empty || tensor->shape[d] == 0;
            std::int64_t extent = 0;
            if (tensor->shape[d] > 0
                && (multiplyOverflows(tensor->shape[d] - 1, tensor->strides[d], extent)
                    || extent > std::numeric_limits<std::int64_t>::max() - last)) {
                return error("a tensor's size overflows");
            }
            last += extent;
        }
        if (!empty && last >= tensor->storage->numel) {
            return error("a tensor reaches element " + std::to_string(last) + " of a storage with "
                         + std::to_string(tensor->storage->numel) + " elements");
        }
        return PickleValue::tensor(std::move(tensor));
    }

    Result<PickleValue> call(const PickleValue& callable, const PickleValue& args)
    {
        if (!callable.is(PickleValue::Kind::Global)) {
            return error("REDUCE calls a " + std::string(callable.typeName()) + ", which is not callable");
        }
        if (!args.is(PickleValue::Kind::Tuple)) {
            return error("REDUCE arguments are a " + std::string(args.typeName()) + ", not a tuple");
        }
        const PickleValue::Items& a = args.items();
        switch (callable.globalKind()) {
        case PickleGlobal::OrderedDict:
            if (!a.empty()) {
                return error("collections.OrderedDict is called with arguments");
            }
            return PickleValue::dict();
        case PickleGlobal::RebuildTensor:
            if (a.size() != 4) {
                return error("torch._utils._rebuild_tensor takes 4 arguments, not " + std::to_string(a.size()));
            }
            return rebuildTensor(a);
        case PickleGlobal::RebuildTensorV2:
            if (a.size() != 6 && a.size() != 7) {
                return error("torch._utils._rebuild_tensor_v2 takes 6 or 7 arguments, not " + std::to_string(a.size()));
            }
            return rebuildTensor(a);
        case PickleGlobal::RebuildParameter:
            if (a.size() != 3 || !a[0].is(PickleValue::Kind::Tensor)) {
                return error("torch._utils._rebuild_parameter takes a tensor and 2 more arguments");
            }
            return a[0];
        case PickleGlobal::StorageType:
        case PickleGlobal::DTypeObject:
            break;
        }
        return Status(ErrorCode::Unsupported,
                      "refusing to load: the file calls " + printable(callable.text()) + ", which could run code");
    }

    // BINPERSID: torch names storages with ('storage', storage_type, key, location, numel).
    Result<PickleValue> persistentLoad(const PickleValue& pid)
    {
        const PickleValue::Items& t = pid.items();
        if (!pid.is(PickleValue::Kind::Tuple) || t.size() != 5 || !t[0].is(PickleValue::Kind::String)
            || t[0].text() != "storage") {
            return error("a persistent id is not a ('storage', type, key, location, numel) tuple");
        }
        if (!t[1].is(PickleValue::Kind::Global) || t[1].globalKind() != PickleGlobal::StorageType) {
            return error("a persistent id names no storage type");
        }
        if (!t[2].is(PickleValue::Kind::String) || t[2].text().empty()
            || t[2].text().find('/') != std::string::npos) {
            return error("a persistent id has a bad storage key");
        }
        if (!t[3].is(PickleValue::Kind::String) || !t[4].is(PickleValue::Kind::Int) || t[4].toInt() < 0) {
            return error("a persistent id has a bad location or element count");
        }
        auto storage = std::make_shared<PickleStorage>();
        storage->type = t[1].elementType();
        storage->key = t[2].text();
        storage->location = t[3].text();
        storage->numel = t[4].toInt();
        return PickleValue::storage(std::move(storage));
    }

    Status step(std::uint8_t opcode)
    {
        switch (opcode) {
        case PROTO: {
            const auto version = readLittle<std::uint8_t>();
            if (!version) {
                return truncated();
            }
            if (*version < 2 || *version > 5) {
                return Status(ErrorCode::Unsupported,
                              "pickle protocol " + std::to_string(*version) + " is not supported (2 to 5 are)");
            }
            return {};
        }
        case FRAME: {
            // A framing hint for buffered readers; the data is all in memory already.
            const auto length = readLittle<std::uint64_t>();
            if (!length) {
                return truncated();
            }
            if (*length > m_data.size() - m_pos) {
                return error("a frame runs past the end of the data");
            }
            return {};
        }
        case MARK:
            if (m_stack.size() + m_marks.size() >= m_limits.maxStack) {
                return error("the stack grows past " + std::to_string(m_limits.maxStack) + " entries");
            }
            m_marks.push_back(m_stack.size());
            return {};
        case POP: {
            if (m_stack.size() > currentMarkBase()) {
                m_stack.pop_back();
                return {};
            }
            return error("stack underflow");
        }
        case POP_MARK: {
            auto items = popMark();
            return items ? Status() : items.status();
        }
        case NONE: return push(PickleValue::none());
        case NEWTRUE: return push(PickleValue::boolean(true));
        case NEWFALSE: return push(PickleValue::boolean(false));
        case BININT: {
            const auto v = readLittle<std::uint32_t>();
            return v ? push(PickleValue::integer(static_cast<std::int32_t>(*v))) : truncated();
        }
        case BININT1: {
            const auto v = readLittle<std::uint8_t>();
            return v ? push(PickleValue::integer(*v)) : truncated();
        }
        case BININT2: {
            const auto v = readLittle<std::uint16_t>();
            return v ? push(PickleValue::integer(*v)) : truncated();
        }
        case LONG1: {
            const auto n = readLittle<std::uint8_t>();
            if (!n) {
                return truncated();
            }
            if (*n > 8) {
                return Status(ErrorCode::Unsupported, "an integer wider than 64 bits");
            }
            const auto bytes = take(*n);
            if (!bytes) {
                return truncated();
            }
            std::uint64_t value = 0;
            for (std::size_t i = 0; i < *n; ++i) {
                value |= static_cast<std::uint64_t>(std::to_integer<unsigned>((*bytes)[i])) << (8 * i);
            }
            // Two's complement of n bytes: sign-extend from the top byte.
            if (*n > 0 && *n < 8 && (std::to_integer<unsigned>((*bytes)[*n - 1u]) & 0x80u)) {
                value |= ~std::uint64_t{0} << (8 * *n);
            }
            return push(PickleValue::integer(static_cast<std::int64_t>(value)));
        }
        case BINFLOAT: {
            const auto bytes = take(8);
            if (!bytes) {
                return truncated();
            }
            std::uint64_t bits = 0;
            for (const std::byte b : *bytes) { // big-endian, unlike everything else
                bits = (bits << 8) | std::to_integer<std::uint64_t>(b);
            }
            return push(PickleValue::floating(std::bit_cast<double>(bits)));
        }
        case SHORT_BINUNICODE:
        case SHORT_BINBYTES: {
            const auto n = readLittle<std::uint8_t>();
            return n ? pushString(*n, opcode == SHORT_BINBYTES) : truncated();
        }
        case BINUNICODE:
        case BINBYTES: {
            const auto n = readLittle<std::uint32_t>();
            return n ? pushString(*n, opcode == BINBYTES) : truncated();
        }
        case BINUNICODE8:
        case BINBYTES8: {
            const auto n = readLittle<std::uint64_t>();
            return n ? pushString(*n, opcode == BINBYTES8) : truncated();
        }
        case EMPTY_DICT: return push(PickleValue::dict());
        case EMPTY_LIST: return push(PickleValue::list());
        case EMPTY_TUPLE: return push(PickleValue::tuple({}));
        case TUPLE: {
            auto items = popMark();
            if (!items) {
                return items.status();
            }
            return push(PickleValue::tuple(std::move(*items)));
        }
        case TUPLE1:
        case TUPLE2:
        case TUPLE3: {
            const std::size_t n = opcode - TUPLE1 + 1u;
            if (m_stack.size() < currentMarkBase() + n) {
                return error("stack underflow");
            }
            PickleValue::Items items(std::make_move_iterator(m_stack.end() - static_cast<std::ptrdiff_t>(n)),
                                     std::make_move_iterator(m_stack.end()));
            m_stack.resize(m_stack.size() - n);
            return push(PickleValue::tuple(std::move(items)));
        }
        case APPEND: {
            auto value = pop();
            if (!value) {
                return value.status();
            }
            if (m_stack.size() <= currentMarkBase() || !m_stack.back().is(PickleValue::Kind::List)) {
                return error("APPEND to something that is not a list");
            }
            m_stack.back().append(std::move(*value));
            return {};
        }
        case APPENDS: {
            auto items = popMark();
            if (!items) {
                return items.status();
            }
            if (m_stack.size() <= currentMarkBase() || !m_stack.back().is(PickleValue::Kind::List)) {
                return error("APPENDS to something that is not a list");
            }
            for (PickleValue& item : *items) {
                m_stack.back().append(std::move(item));
            }
            return {};
        }
        case SETITEM: {
            auto value = pop();
            if (!value) {
                return value.status();
            }
            auto key = pop();
            if (!key) {
                return key.status();
            }
            if (m_stack.size() <= currentMarkBase() || !m_stack.back().is(PickleValue::Kind::Dict)) {
                return error("SETITEM on something that is not a dict");
            }
            m_stack.back().setItem(std::move(*key), std::move(*value));
            return {};
        }
        case SETITEMS: {
            auto items = popMark();
            if (!items) {
                return items.status();
            }
            if (items->size() % 2 != 0) {
                return error("SETITEMS with an odd number of values");
            }
            if (m_stack.size() <= currentMarkBase() || !m_stack.back().is(PickleValue::Kind::Dict)) {
                return error("SETITEMS on something that is not a dict");
            }
            for (std::size_t i = 0; i < items->size(); i += 2) {
                m_stack.back().setItem(std::move((*items)[i]), std::move((*items)[i + 1]));
            }
            return {};
        }
        case BINPUT: {
            const auto index = readLittle<std::uint8_t>();
            return index ? memoPut(*index) : truncated();
        }
        case LONG_BINPUT: {
            const auto index = readLittle<std::uint32_t>();
            return index ? memoPut(*index) : truncated();
        }
        case MEMOIZE: return memoPut(m_memo.size());
        case BINGET: {
            const auto index = readLittle<std::uint8_t>();
            return index ? memoGet(*index) : truncated();
        }
        case LONG_BINGET: {
            const auto index = readLittle<std::uint32_t>();
            return index ? memoGet(*index) : truncated();
        }
        case GLOBAL: {
            auto module = readLine();
            if (!module) {
                return module.status();
            }
            auto name = readLine();
            if (!name) {
                return name.status();
            }
            return pushGlobal(*module, *name);
        }
        case STACK_GLOBAL: {
            auto name = pop();
            if (!name) {
                return name.status();
            }
            auto module = pop();
            if (!module) {
                return module.status();
            }
            if (!module->is(PickleValue::Kind::String) || !name->is(PickleValue::Kind::String)) {
                return error("STACK_GLOBAL needs two strings");
            }
            return pushGlobal(module->text(), name->text());
        }
        case REDUCE: {
            auto args = pop();
            if (!args) {
                return args.status();
            }
            auto callable = pop();
            if (!callable) {
                return callable.status();
            }
            auto result = call(*callable, *args);
            if (!result) {
                return result.status();
            }
            return push(std::move(*result));
        }
        case NEWOBJ: {
            auto args = pop();
            if (!args) {
                return args.status();
            }
            auto cls = pop();
            if (!cls) {
                return cls.status();
            }
            if (cls->is(PickleValue::Kind::Global) && cls->globalKind() == PickleGlobal::OrderedDict
                && args->is(PickleValue::Kind::Tuple) && args->items().empty()) {
                return push(PickleValue::dict());
            }
            const std::string name = cls->is(PickleValue::Kind::Global) ? cls->text() : std::string(cls->typeName());
            return Status(ErrorCode::Unsupported,
                          "refusing to load: the file creates a " + printable(name) + ", which could run code");
        }
        case BUILD: {
            // Sets instance state: a state dict's OrderedDict gets its _metadata attribute this
            // way. Hearth needs none of it, so the state is checked for its kind and dropped.
            auto state = pop();
            if (!state) {
                return state.status();
            }
            if (m_stack.size() <= currentMarkBase()) {
                return error("stack underflow");
            }
            const PickleValue& target = m_stack.back();
            if (!target.is(PickleValue::Kind::Dict) && !target.is(PickleValue::Kind::Tensor)) {
                return Status(ErrorCode::Unsupported, "refusing to load: the file sets the state of a "
                                                          + std::string(target.typeName()));
            }
            return {};
        }
        case BINPERSID: {
            auto pid = pop();
            if (!pid) {
                return pid.status();
            }
            auto storage = persistentLoad(*pid);
            if (!storage) {
                return storage.status();
            }
            return push(std::move(*storage));
        }
        default: break;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", opcode);
        return Status(ErrorCode::Unsupported, "invalid pickle (offset " + std::to_string(m_opcodeOffset)
                                                  + "): opcode " + hex + " is not supported");
    }

    // Rejects cycles and nesting deeper than the limit, so that code walking the result may
    // recurse without a guard.
    Status checkStructure(const PickleValue& root)
    {
        return visit(root, 0, m_reachable);
    }

    Status visit(const PickleValue& value, std::size_t depth, std::unordered_map<const void*, bool>& state)
    {
        const void* id = value.containerIdentity();
        if (id == nullptr) {
            return {};
        }
        if (depth >= m_limits.maxNesting) {
            return error("containers nest deeper than " + std::to_string(m_limits.maxNesting) + " levels");
        }
        const auto [it, inserted] = state.emplace(id, false);
        if (!inserted) {
            return it->second ? Status() : error("a container contains itself");
        }
        for (const PickleValue& item : value.items()) {
            HEARTH_TRY(visit(item, depth + 1, state));
        }
        for (const auto& [key, item] : value.dictItems()) {
            HEARTH_TRY(visit(key, depth + 1, state));
            HEARTH_TRY(visit(item, depth + 1, state));
        }
        state[id] = true;
        return {};
    }

    std::span<const std::byte> m_data;
    UnpicklerLimits m_limits;
    std::size_t m_pos = 0;
    std::size_t m_opcodeOffset = 0;
    std::vector<PickleValue> m_stack;
    std::vector<std::size_t> m_marks;
    std::unordered_map<std::uint64_t, PickleValue> m_memo;
    std::vector<PickleValue> m_containers; // every container made, to break cycles on failure
    // Containers in the result: false while on the current path of the check, true once done.
    std::unordered_map<const void*, bool> m_reachable;
};

} // namespace

Result<PickleValue> unpickle(std::span<const std::byte> data, const UnpicklerLimits& limits)
{
    Unpickler unpickler(data, limits);
    return unpickler.run();
}

} // namespace hearth::convert
