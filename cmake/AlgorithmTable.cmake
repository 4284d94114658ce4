# The algorithm table for CMake, read as the C preprocessor reads it:
# tools/table_rows.c (with tools/table_json.c, the writer of
# build/algorithms.json) is compiled for the build machine -- never the
# target, so a cross build needs no emulator here -- and run at configure
# time; CMake reads its JSON with string(JSON).  Editing src/algorithms.def
# reconfigures.
set(_table_src ${CMAKE_CURRENT_LIST_DIR}/..)
if(CMAKE_CROSSCOMPILING)
  find_program(KPQC_HOST_CC NAMES cc gcc clang REQUIRED DOC "C compiler for programs run at configure time")
else()
  set(KPQC_HOST_CC ${CMAKE_C_COMPILER})
endif()
set(KPQC_TABLE_ROWS_TOOL ${CMAKE_BINARY_DIR}/CMakeFiles/kpqc-table-rows)
execute_process(COMMAND ${KPQC_HOST_CC} -std=c11 -DKPQC_TABLE_ROWS_ONLY -I${_table_src}/src -I${_table_src}/tools
                        ${_table_src}/tools/table_rows.c ${_table_src}/tools/table_json.c -o ${KPQC_TABLE_ROWS_TOOL}
                RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "The algorithm table does not compile with ${KPQC_HOST_CC}:\n${_err}")
endif()
execute_process(COMMAND ${KPQC_TABLE_ROWS_TOOL} OUTPUT_VARIABLE KPQC_TABLE_JSON RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${KPQC_TABLE_ROWS_TOOL} failed (${_rc})")
endif()
set_property(DIRECTORY ${_table_src} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${_table_src}/src/algorithms.def ${_table_src}/tools/table_json.c ${_table_src}/tools/table_rows.c)

# Field FIELD of every row of KIND ("kems", "sigs", "hybrids", "composites",
# "families"), in the table's order, into OUT.
function(kpqc_table_column out kind field)
  set(values "")
  string(JSON n LENGTH "${KPQC_TABLE_JSON}" ${kind})
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON v GET "${KPQC_TABLE_JSON}" ${kind} ${i} ${field})
      list(APPEND values "${v}")
    endforeach()
  endif()
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

# The names of the KEMs ("kems") or signatures ("sigs") of the families
# listed after FAMILIES, or of the hybrid groups ("hybrids") whose KEM is of
# one of them, into OUT.
function(kpqc_table_names out kind)
  cmake_parse_arguments(arg "" "" "FAMILIES" ${ARGN})
  set(names "")
  if(kind STREQUAL "hybrids")
    kpqc_table_names(wanted kems FAMILIES ${arg_FAMILIES})
    kpqc_table_column(all hybrids name)
    kpqc_table_column(owners hybrids kem)
  else()
    set(wanted ${arg_FAMILIES})
    kpqc_table_column(all ${kind} name)
    kpqc_table_column(owners ${kind} family)
  endif()
  foreach(name owner IN ZIP_LISTS all owners)
    if(owner IN_LIST wanted)
      list(APPEND names ${name})
    endif()
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()
