// SPDX-License-Identifier: MIT
#pragma once

// The values an Unpickler can produce: Python's plain data (None, bool, int, float, str, bytes,
// list, tuple, dict) plus the few PyTorch objects a checkpoint is made of (storages, tensors,
// dtypes). Lists, tuples and dicts are shared like Python objects are: the pickle memo can refer
// to one container from several places.

#include "convert/element_type.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hearth::convert {

class PickleValue;

// The callables and classes an Unpickler lets a file name (everything else is refused).
enum class PickleGlobal {
    OrderedDict,      // collections.OrderedDict
    RebuildTensor,    // torch._utils._rebuild_tensor
    RebuildTensorV2,  // torch._utils._rebuild_tensor_v2
    RebuildParameter, // torch._utils._rebuild_parameter
    StorageType,      // torch.FloatStorage, ... and torch.UntypedStorage; element type alongside
    DTypeObject,      // torch.float32, ...; element type alongside
};

// A storage named by a persistent id ('storage', type, key, location, numel): the data is the
// archive entry data/<key>.
struct PickleStorage {
    ElementType type = ElementType::U8;
    std::string key;
    std::string location;
    std::int64_t numel = 0; // elements of type
};

// A tensor as torch._utils._rebuild_tensor_v2 describes it: a strided view of a storage.
struct PickleTensor {
    std::shared_ptr<const PickleStorage> storage;
    std::int64_t storageOffset = 0; // in elements
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides; // in elements
};

class PickleValue {
public:
    enum class Kind { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Global, Storage, Tensor };
    using Items = std::vector<PickleValue>;
    using DictItems = std::vector<std::pair<PickleValue, PickleValue>>;

    PickleValue() = default;
    static PickleValue none() { return {}; }
    static PickleValue boolean(bool value);
    static PickleValue integer(std::int64_t value);
    static PickleValue floating(double value);
    static PickleValue string(std::string value);
    static PickleValue bytes(std::string value);
    static PickleValue list(Items items = {});
    static PickleValue tuple(Items items);
    static PickleValue dict();
    static PickleValue global(PickleGlobal global, ElementType type, std::string qualifiedName);
    static PickleValue storage(std::shared_ptr<const PickleStorage> storage);
    static PickleValue tensor(std::shared_ptr<const PickleTensor> tensor);

    [[nodiscard]] Kind kind() const { return m_kind; }
    [[nodiscard]] bool is(Kind kind) const { return m_kind == kind; }
    [[nodiscard]] bool toBool() const { return m_int != 0; }
    [[nodiscard]] std::int64_t toInt() const { return m_int; }
    [[nodiscard]] double toFloat() const { return m_float; }
    // Text of a String, raw bytes of Bytes, dotted name of a Global.
    [[nodiscard]] const std::string& text() const;
    // Elements of a List or Tuple (empty for other kinds).
    [[nodiscard]] const Items& items() const;
    // Key/value pairs of a Dict in insertion order (empty for other kinds).
    [[nodiscard]] const DictItems& dictItems() const;
    // The value under string key @p key of a Dict, or nullptr.
    [[nodiscard]] const PickleValue* find(std::string_view key) const;
    [[nodiscard]] PickleGlobal globalKind() const { return m_global; }
    [[nodiscard]] ElementType elementType() const { return m_elementType; }
    [[nodiscard]] const std::shared_ptr<const PickleStorage>& storageRef() const { return m_storage; }
    [[nodiscard]] const std::shared_ptr<const PickleTensor>& tensorRef() const { return m_tensor; }

    // Python-like name of the kind, for messages ("dict", "tuple", ...).
    [[nodiscard]] std::string_view typeName() const;

    // Mutation, for the Unpickler only. Dict keys that are str or int replace an equal key like
    // Python does; other keys are appended.
    void append(PickleValue value);
    void setItem(PickleValue key, PickleValue value);
    // Drops the contents of a container, breaking reference cycles a hostile file may build.
    void clearContainer();
    // The identity of a shared container (for cycle checks), or nullptr.
    [[nodiscard]] const void* containerIdentity() const;

private:
    struct Container;

    Kind m_kind = Kind::None;
    std::int64_t m_int = 0;
    double m_float = 0.0;
    PickleGlobal m_global = PickleGlobal::OrderedDict;
    ElementType m_elementType = ElementType::U8;
    std::shared_ptr<Container> m_container; // List, Tuple, Dict
    std::shared_ptr<const std::string> m_text;
    std::shared_ptr<const PickleStorage> m_storage;
    std::shared_ptr<const PickleTensor> m_tensor;
};

} // namespace hearth::convert
