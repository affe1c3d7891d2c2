#pragma once
// Internal to the library (not installed): ESDIRK_VECTOR_CLONES marks a hot small kernel to be
// compiled twice on x86-64 ELF targets, for AVX2 and for the baseline, with the loader picking
// one per machine (GCC function multiversioning). The vector lanes are independent and no FMA
// is enabled, so both versions give the same bits.
//
// The clones are GCC only and never under a sanitizer: clang (14 at least) rejects
// target_clones on function templates, and the ifunc resolver that picks a clone runs while
// the dynamic loader relocates the library, before a sanitizer's runtime is set up (a GCC
// ThreadSanitizer build crashed there at load). Without the clones the kernels are the same
// code compiled once for the baseline, with the same results. ESDIRK_NO_VECTOR_CLONES turns
// them off by hand (the build defines it for ESDIRK_SANITIZE, which covers UBSan: GCC has no
// macro for it).

#if !defined(ESDIRK_NO_VECTOR_CLONES) && \
    (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define ESDIRK_NO_VECTOR_CLONES 1
#endif
#if !defined(ESDIRK_NO_VECTOR_CLONES) && defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define ESDIRK_NO_VECTOR_CLONES 1
#endif
#endif

#if !defined(ESDIRK_NO_VECTOR_CLONES) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define ESDIRK_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef ESDIRK_VECTOR_CLONES
#define ESDIRK_VECTOR_CLONES
#endif
