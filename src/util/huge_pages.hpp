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

// Advises huge pages for the whole 2 MiB pages inside `vector`'s capacity; with `fault_in_head`, also faults
// in the 4 KiB pages before the first of them (filled first, up to 2 MiB) with one call instead of one fault
// each, for an array sure to fill them (the head then costs memory at once). For a capacity holding no whole
// huge page, nothing. A hint, never an error (MADV_POPULATE_WRITE: Linux 5.14).
template <typename T>
void advise_huge_pages(const std::vector<T>& vector, bool fault_in_head = false) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t k_huge = std::uintptr_t{2} << 20;
  constexpr std::uintptr_t k_page = std::uintptr_t{4} << 10;
  const auto begin = reinterpret_cast<std::uintptr_t>(vector.data());
  const std::uintptr_t end = begin + vector.capacity() * sizeof(T);
  const std::uintptr_t first = (begin + k_huge - 1) & ~(k_huge - 1);
  const std::uintptr_t last = end & ~(k_huge - 1);
  if (vector.data() != nullptr && last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#if defined(MADV_POPULATE_WRITE)
    const std::uintptr_t head = begin & ~(k_page - 1);
    if (fault_in_head && first > head) {
      madvise(reinterpret_cast<void*>(head), first - head, MADV_POPULATE_WRITE);
    }
#endif
  }
#else
  (void)vector;
  (void)fault_in_head;
#endif
}

}  // namespace neuron_gate
