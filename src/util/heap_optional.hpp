#pragma once
// An optional value held on the heap: 8 bytes inline, for members that are large and almost always
// empty in a record kept by the ten thousand (a judged metric's replaced ops and its waiver: 50,000 op
// metrics, 136 bytes each saved). Value semantics: copies are deep, comparison compares the values.

#include <memory>
#include <utility>

namespace neuron_gate {

// Like std::optional<T>, except that reading an empty one (operator*, ->) gives a default T rather than
// undefined behaviour, so a member that is "a list, usually empty" reads as that empty list.
template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(T value) : m_value(std::make_unique<T>(std::move(value))) {}  // NOLINT: converts like optional
  HeapOptional(const HeapOptional& other) : m_value(other.m_value ? std::make_unique<T>(*other.m_value) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& other) {
    if (this != &other) {
      m_value = other.m_value ? std::make_unique<T>(*other.m_value) : nullptr;
    }
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(T value) {
    m_value = std::make_unique<T>(std::move(value));
    return *this;
  }
  ~HeapOptional() = default;

  bool has_value() const { return m_value != nullptr; }
  explicit operator bool() const { return has_value(); }
  // The value, or a default T when empty.
  const T& operator*() const { return m_value ? *m_value : empty(); }
  const T* operator->() const { return &**this; }
  // The value, or `fallback` when empty.
  T value_or(T fallback) const { return m_value ? *m_value : std::move(fallback); }

  bool operator==(const HeapOptional& other) const {
    return has_value() == other.has_value() && (!has_value() || *m_value == *other.m_value);
  }

 private:
  static const T& empty() {
    static const T value{};
    return value;
  }
  std::unique_ptr<T> m_value;
};

}  // namespace neuron_gate
