# Modules (esdirk, sensitivity, events, structural, capi) call esdirk_add_module(); the top
# level then builds libesdirk (shared) and libesdirk (static) from all registered sources.

set_property(GLOBAL PROPERTY ESDIRK_SOURCES "")
set_property(GLOBAL PROPERTY ESDIRK_INCLUDE_DIRS "")

# esdirk_add_module(SOURCES a.cpp b.cpp)
# The calling folder's include/ holds the public headers (include/esdirk/...).
function(esdirk_add_module)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  foreach(src ${ARG_SOURCES})
    set_property(GLOBAL APPEND PROPERTY ESDIRK_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY ESDIRK_INCLUDE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/include)
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

function(esdirk_build_libraries)
  get_property(sources GLOBAL PROPERTY ESDIRK_SOURCES)
  get_property(includes GLOBAL PROPERTY ESDIRK_INCLUDE_DIRS)
  add_library(esdirk_objects OBJECT ${sources})
  set_target_properties(esdirk_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(esdirk_objects PUBLIC ${includes})
  # Internal headers of the core (not installed), shared by the modules built into the library.
  target_include_directories(esdirk_objects PRIVATE ${PROJECT_SOURCE_DIR}/esdirk/src)
  foreach(kind shared static)
    string(TOUPPER ${kind} KIND)
    add_library(esdirk_${kind} ${KIND} $<TARGET_OBJECTS:esdirk_objects>)
    set_target_properties(esdirk_${kind} PROPERTIES OUTPUT_NAME esdirk EXPORT_NAME ${kind}
                          VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
    foreach(dir ${includes})
      target_include_directories(esdirk_${kind} PUBLIC $<BUILD_INTERFACE:${dir}>)
    endforeach()
    target_include_directories(esdirk_${kind} PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(esdirk_${kind} PUBLIC ${LAPACK_LIBRARIES})
    target_compile_features(esdirk_${kind} PUBLIC cxx_std_20)
    install(TARGETS esdirk_${kind} EXPORT esdirkTargets
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endforeach()
  # The name everything inside the project links against.
  add_library(esdirk::esdirk ALIAS esdirk_shared)
endfunction()
