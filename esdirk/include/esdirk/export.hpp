#pragma once
// ESDIRK_API marks the declarations that libesdirk exports. The library is compiled with
// hidden visibility (-fvisibility=hidden -fvisibility-inlines-hidden), so everything else,
// including the esdirk::detail and esdirk::internal helpers, stays inside the shared object.
//
// Put ESDIRK_API on a class (`class ESDIRK_API Integrator`), which exports its member
// functions, vtable and type info, or on a free function declaration. Templates and inline
// functions defined in headers need no mark. The C API has its own ESDIRK_C_API (esdirk.h).
//
// ESDIRK_STATIC_DEFINE (set by the esdirk::static target) makes the mark empty: a program
// that links the static library exports nothing of esdirk's.

#if defined(ESDIRK_STATIC_DEFINE)
#define ESDIRK_API
#elif defined(_WIN32)
#if defined(ESDIRK_BUILDING_LIBRARY)
#define ESDIRK_API __declspec(dllexport)
#else
#define ESDIRK_API __declspec(dllimport)
#endif
#else
#define ESDIRK_API __attribute__((visibility("default")))
#endif
