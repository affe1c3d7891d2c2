# One CMake target per module, linking only downward (doc/DESIGN: esdirk <- sensitivity <-
# events; structural stands alone on esdirk's linear algebra; multishoot on sensitivity; capi
# on top of all of them), and
# one package: libesdirk (shared and static) is built from the objects of every module.
#
# A module folder's CMakeLists.txt calls esdirk_add_module(SOURCES ...). That makes the OBJECT
# library esdirk_<module>_objects ("core" for the esdirk folder) whose include path is the
# module's own include/ plus, through target_link_libraries, those of the modules below it
# and nothing else: a module that includes a header of a module above or beside it does not
# compile. tests/bindings checks that direction.

# The modules each module may use (its include path); the folder name is the module name.
set(ESDIRK_MODULE_USES_esdirk "")
set(ESDIRK_MODULE_USES_ad esdirk sensitivity events)  # ad/hybrid_model_problem.hpp: HybridProblem
set(ESDIRK_MODULE_USES_sensitivity esdirk)
set(ESDIRK_MODULE_USES_events sensitivity)
set(ESDIRK_MODULE_USES_structural esdirk)
set(ESDIRK_MODULE_USES_geometric esdirk)
set(ESDIRK_MODULE_USES_multishoot sensitivity)
set(ESDIRK_MODULE_USES_capi esdirk sensitivity events structural geometric multishoot)
# The modules that may include the core's internal headers (esdirk/src/internal), which are
# not installed.
set(ESDIRK_MODULES_USING_CORE_INTERNALS esdirk ad sensitivity events geometric multishoot capi)

# Symbol visibility. Modules whose public declarations all carry ESDIRK_API (C++) or
# ESDIRK_C_API (C) are compiled with -fvisibility=hidden -fvisibility-inlines-hidden, so that
# only the marked API leaves libesdirk.so. A new module joins the list once its headers are
# annotated; ESDIRK_HIDDEN_VISIBILITY=ON hides every module regardless (to find what a new
# module still needs to mark: its users then fail to link).
set(ESDIRK_MODULES_ANNOTATED esdirk ad sensitivity events structural geometric multishoot capi)
option(ESDIRK_HIDDEN_VISIBILITY "Compile every module with hidden symbol visibility" OFF)

set_property(GLOBAL PROPERTY ESDIRK_MODULES "")

# The internal headers of the core (esdirk/src/internal), for the modules listed above.
add_library(esdirk_core_internals INTERFACE)
target_include_directories(esdirk_core_internals INTERFACE ${PROJECT_SOURCE_DIR}/esdirk/src)

# The object target of a module.
function(esdirk_module_target module result)
  if(module STREQUAL "esdirk")
    set(${result} esdirk_core_objects PARENT_SCOPE)
  else()
    set(${result} esdirk_${module}_objects PARENT_SCOPE)
  endif()
endfunction()

# esdirk_add_module(SOURCES a.cpp b.cpp)
# The calling folder's include/ holds the module's public headers (include/esdirk/...).
function(esdirk_add_module)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  get_filename_component(module ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  esdirk_module_target(${module} target)
  add_library(${target} OBJECT ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_definitions(${target} PRIVATE ESDIRK_BUILDING_LIBRARY)
  if(module IN_LIST ESDIRK_MODULES_USING_CORE_INTERNALS)
    target_link_libraries(${target} PRIVATE esdirk_core_internals)
  endif()
  if(ESDIRK_HIDDEN_VISIBILITY OR module IN_LIST ESDIRK_MODULES_ANNOTATED)
    set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                               VISIBILITY_INLINES_HIDDEN ON)
  endif()
  set_property(GLOBAL APPEND PROPERTY ESDIRK_MODULES ${module})
  set_property(GLOBAL APPEND PROPERTY ESDIRK_PUBLIC_INCLUDE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/include)
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# The one include folder of the build tree (<build>/include): every module's public headers,
# as symbolic links, in the layout the install tree has, so that a program built against the
# build tree needs one -I (and the exported build-tree package its one include directory). The
# links follow edits of a header; a header added or removed re-runs the configuration
# (CONFIGURE_DEPENDS), which refreshes the folder.
set(ESDIRK_BUILD_TREE_INCLUDE_DIR ${PROJECT_BINARY_DIR}/include)
function(esdirk_build_tree_include_folder folder)
  get_property(dirs GLOBAL PROPERTY ESDIRK_PUBLIC_INCLUDE_DIRS)
  file(REMOVE_RECURSE ${folder})
  foreach(dir ${dirs})
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE ${dir} ${dir}/*)
    foreach(header ${headers})
      if(EXISTS ${folder}/${header})
        message(FATAL_ERROR "two modules install the public header ${header}")
      endif()
      get_filename_component(sub ${folder}/${header} DIRECTORY)
      file(MAKE_DIRECTORY ${sub})
      file(CREATE_LINK ${dir}/${header} ${folder}/${header} SYMBOLIC)
    endforeach()
  endforeach()
endfunction()

# Called once after every module folder: links each module to the modules it uses (known only
# now that all exist), then builds libesdirk from all objects.
function(esdirk_build_libraries)
  get_property(modules GLOBAL PROPERTY ESDIRK_MODULES)
  set(objects)
  foreach(module ${modules})
    esdirk_module_target(${module} target)
    foreach(used ${ESDIRK_MODULE_USES_${module}})
      if(used IN_LIST modules)
        esdirk_module_target(${used} used_target)
        target_link_libraries(${target} PUBLIC ${used_target})
      endif()
    endforeach()
    list(APPEND objects $<TARGET_OBJECTS:${target}>)
  endforeach()

  esdirk_build_tree_include_folder(${ESDIRK_BUILD_TREE_INCLUDE_DIR})

  # Internal symbols never leave the shared library, whatever the compile-time visibility.
  set(version_script ${PROJECT_SOURCE_DIR}/cmake/esdirk.map)
  foreach(kind shared static)
    string(TOUPPER ${kind} KIND)
    add_library(esdirk_${kind} ${KIND} ${objects})
    set_target_properties(esdirk_${kind} PROPERTIES OUTPUT_NAME esdirk EXPORT_NAME ${kind}
                          VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
    # Users see one include folder, in the build tree as after an install.
    target_include_directories(esdirk_${kind} PUBLIC $<BUILD_INTERFACE:${ESDIRK_BUILD_TREE_INCLUDE_DIR}>)
    target_include_directories(esdirk_${kind} PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    # Threads: the multishoot module's thread pool. KLU: the sparse stage linear system.
    target_link_libraries(esdirk_${kind} PUBLIC ${ESDIRK_KLU_LIBRARIES} ${LAPACK_LIBRARIES} Threads::Threads)
    target_compile_features(esdirk_${kind} PUBLIC cxx_std_20)
    install(TARGETS esdirk_${kind} EXPORT esdirkTargets
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endforeach()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")  # GNU ld, gold and lld read version scripts
    target_link_options(esdirk_shared PRIVATE -Wl,--version-script=${version_script})
    set_property(TARGET esdirk_shared APPEND PROPERTY LINK_DEPENDS ${version_script})
  endif()
  # A program that links the static library exports nothing of esdirk's (export.hpp).
  target_compile_definitions(esdirk_static INTERFACE ESDIRK_STATIC_DEFINE)
  # The name everything inside the project links against.
  add_library(esdirk::esdirk ALIAS esdirk_shared)
  add_library(esdirk::static ALIAS esdirk_static)
endfunction()
