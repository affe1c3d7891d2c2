#pragma once
// A global operator new that counts while `counting_new::enabled` is set, for the tests that
// prove a loop allocates nothing. Include it in exactly one source file of a test program
// (it replaces the program's operator new and delete).

#include <cstdlib>
#include <new>

namespace counting_new {
inline long allocations = 0;
inline bool enabled = false;
}  // namespace counting_new

// This file replaces the global operator new and delete as a pair (malloc and free), which
// GCC's -Wmismatched-new-delete cannot see when it inlines one side.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  if (counting_new::enabled) ++counting_new::allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): left to the runtime,
// AddressSanitizer's own nothrow new would hand out memory that the free above releases, an
// alloc-dealloc mismatch, and they would allocate without being counted.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (counting_new::enabled) ++counting_new::allocations;
  return std::malloc(size ? size : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
