#pragma once
// Transparent huge pages for the few large arrays that fill once (the trace's event records): with THP in
// "madvise" mode (Debian's default), the kernel then backs their reserved capacity with 2 MiB pages as it is
// touched, one page fault per 2 MiB instead of one per 4 KiB (a fault costs microseconds in a VM: a quarter
// of reading a legacy trace went to them). Untouched capacity still costs no memory.

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace neuron_gate {

// Advises huge pages for the whole 2 MiB pages inside `vector`'s capacity; a hint, never an error.
template <typename T>
void advise_huge_pages(const std::vector<T>& vector) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t k_huge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(vector.data());
  const std::uintptr_t end = begin + vector.capacity() * sizeof(T);
  const std::uintptr_t first = (begin + k_huge - 1) & ~(k_huge - 1);
  const std::uintptr_t last = end & ~(k_huge - 1);
  if (vector.data() != nullptr && last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)vector;
#endif
}

}  // namespace neuron_gate
