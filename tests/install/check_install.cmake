# cmake -P script: install, build a CMake consumer and a pkg-config consumer, run both.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# 1. find_package(esdirk) from the install prefix.
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/cmake-consumer -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-consumer)
run(${WORK_DIR}/cmake-consumer/consumer)
message("${last_output}")

# 2. pkg-config: flags from the installed esdirk.pc.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB_RECURSE pc_files ${prefix}/*/esdirk.pc)
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
# The .pc file finds its prefix relative to itself, so the staged tree works as it is.
run(${PKG_CONFIG} --cflags --libs esdirk)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
get_filename_component(libdir ${pc_dir} DIRECTORY)
run(${CXX} -std=c++20 ${CONSUMER_DIR}/main.cpp ${flags} -Wl,-rpath,${libdir} -o ${WORK_DIR}/pc-consumer)
run(${WORK_DIR}/pc-consumer)
message("${last_output}")

# 3. With the Fortran module built: every .mod file the build compiled is installed (a module
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
