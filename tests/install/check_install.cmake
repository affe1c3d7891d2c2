# cmake -P script: the ways a user builds against esdirk, each compiled and run (the
# subproject one configured only: building the library a second time would double the test's
# time, and the project's own examples already build through that alias):
#   install tree: find_package(esdirk), pkg-config (esdirk.pc);
#   build tree:   find_package(esdirk) (the exported esdirkConfig.cmake), pkg-config
#                 (esdirk-uninstalled.pc), a plain compiler line with the one include folder;
#   subproject:   add_subdirectory of the source tree.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# A consumer program must print x(1) = exp(-1).
function(run_consumer what program)
  run(${program})
  if(NOT last_output MATCHES "consumer: x\\(1\\) = 0\\.3678794412")
    message(FATAL_ERROR "${what}: unexpected output '${last_output}'")
  endif()
  message("${what}: ${last_output}")
endfunction()

# find_package through CMAKE_PREFIX_PATH, build, run.
function(cmake_consumer what prefix_path)
  set(dir ${WORK_DIR}/${what})
  run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${dir} -DCMAKE_PREFIX_PATH=${prefix_path}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX})
  run(${CMAKE_COMMAND} --build ${dir})
  run_consumer(${what} ${dir}/consumer)
endfunction()

# pkg-config with PKG_CONFIG_PATH = pc_dir, then one compiler line.
function(pkg_config_consumer what pc_dir rpath)
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
  run(${PKG_CONFIG} --cflags --libs esdirk)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(includes ${flags})
  list(FILTER includes INCLUDE REGEX "^-I")
  list(LENGTH includes count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "${what}: ${count} include folders: ${flags}")
  endif()
  run(${CXX} -std=c++20 ${CONSUMER_DIR}/main.cpp ${flags} -Wl,-rpath,${rpath}
      -o ${WORK_DIR}/${what})
  run_consumer(${what} ${WORK_DIR}/${what})
endfunction()

find_program(PKG_CONFIG pkg-config REQUIRED)

# 1. The install tree (staged under the work folder).
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
cmake_consumer(install-tree-find-package ${prefix})
file(GLOB_RECURSE pc_files ${prefix}/*/esdirk.pc)
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(libdir ${pc_dir} DIRECTORY)
# The .pc file finds its prefix relative to itself, so the staged tree works as it is.
pkg_config_consumer(install-tree-pkg-config ${pc_dir} ${libdir})
file(GLOB_RECURSE license ${prefix}/share/doc/*/LICENSE)
if(NOT license)
  message(FATAL_ERROR "the LICENSE file is not installed (share/doc/esdirk)")
endif()

# 2. The build tree: its exported package, its uninstalled .pc file, a plain -I line.
cmake_consumer(build-tree-find-package ${BUILD_DIR})
pkg_config_consumer(build-tree-pkg-config ${BUILD_DIR} ${LIBRARY_DIR})
run(${CXX} -std=c++20 ${CONSUMER_DIR}/main.cpp -I${BUILD_DIR}/include -L${LIBRARY_DIR} -lesdirk
    -Wl,-rpath,${LIBRARY_DIR} -o ${WORK_DIR}/build-tree-plain)
run_consumer(build-tree-plain-include ${WORK_DIR}/build-tree-plain)

# 3. A parent project that adds the source tree (configuration only, see above).
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/subproject -DESDIRK_SOURCE_DIR=${SOURCE_DIR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX})
message("subproject: configured, esdirk::esdirk with one include folder")

# 4. With the Fortran module built: every .mod file the build compiled is installed (a module
# added without its install line would otherwise be missing for users only).
if(FORTRAN_MODULE_DIR)
  file(GLOB built_modules ${FORTRAN_MODULE_DIR}/*.mod)
  if(NOT built_modules)
    message(FATAL_ERROR "no Fortran .mod files in ${FORTRAN_MODULE_DIR}")
  endif()
  foreach(module ${built_modules})
    get_filename_component(name ${module} NAME)
    file(GLOB_RECURSE installed ${prefix}/*/esdirk/fortran/${name})
    if(NOT installed)
      message(FATAL_ERROR "Fortran module ${name} is not installed (include/esdirk/fortran)")
    endif()
  endforeach()
  list(LENGTH built_modules count)
  message("fortran: ${count} modules installed")
endif()
message("every consumer passed")
