#pragma once
// Internal to the library (not installed): ESDIRK_VECTOR_CLONES marks a hot small kernel to be
// compiled twice on x86-64 ELF targets, for AVX2 and for the baseline, with the loader picking
// one per machine (GCC/Clang function multiversioning). The vector lanes are independent and
// no FMA is enabled, so both versions give the same bits.

#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define ESDIRK_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef ESDIRK_VECTOR_CLONES
#define ESDIRK_VECTOR_CLONES
#endif
