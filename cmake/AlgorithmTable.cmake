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

# The selected names (KPQC_ALGORITHMS, below) of the KEMs ("kems") or
# signatures ("sigs") of the families listed after FAMILIES, or of the
# hybrid groups ("hybrids") whose KEM, or the composite signatures
# ("composites") whose signature, is of one of them, into OUT (table order).
function(kpqc_table_names out kind)
  cmake_parse_arguments(arg "" "" "FAMILIES" ${ARGN})
  set(names "")
  if(kind STREQUAL "hybrids")
    kpqc_table_names(wanted kems FAMILIES ${arg_FAMILIES})
    kpqc_table_column(all hybrids name)
    kpqc_table_column(owners hybrids kem)
  elseif(kind STREQUAL "composites")
    kpqc_table_names(wanted sigs FAMILIES ${arg_FAMILIES})
    kpqc_table_column(all composites name)
    kpqc_table_column(owners composites sig)
  else()
    set(wanted ${arg_FAMILIES})
    kpqc_table_column(all ${kind} name)
    kpqc_table_column(owners ${kind} family)
  endif()
  foreach(name owner IN ZIP_LISTS all owners)
    if(owner IN_LIST wanted AND name IN_LIST KPQC_SELECTED)
      list(APPEND names ${name})
    endif()
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# ------------------------------------------------------------ selection
# KPQC_ALGORITHMS picks what this build holds: parameter sets ("smaugt1")
# or families ("haetae"), or "all".  The choice becomes
#   KPQC_SELECTED            every selected row's name, of all four kinds
#                            (a hybrid or composite when its KpqC half is);
#   KPQC_SELECTED_FAMILIES   the families with a selected set;
#   kpqc_selection.h         KPQC_SELECT_<name>(...) for every row of the
#                            table: its arguments when selected, nothing
#                            otherwise (src/algorithms.def's KPQC_SELECTED
#                            reads it), in KPQC_SELECTION_DIR.
set(KPQC_ALGORITHMS all CACHE STRING
    "Parameter sets or families to build, e.g. \"smaugt1;haetae\" (default: all)")
function(kpqc_table_select)
  kpqc_table_column(families families name)
  kpqc_table_column(sets_kems kems name)
  kpqc_table_column(fams_kems kems family)
  kpqc_table_column(sets_sigs sigs name)
  kpqc_table_column(fams_sigs sigs family)
  set(sets ${sets_kems} ${sets_sigs})
  set(set_families ${fams_kems} ${fams_sigs})
  set(wanted "")
  foreach(asked IN LISTS KPQC_ALGORITHMS)
    string(TOLOWER "${asked}" asked)
    if(asked STREQUAL "all")
      list(APPEND wanted ${sets})
    elseif(asked IN_LIST families)
      foreach(s f IN ZIP_LISTS sets set_families)
        if(f STREQUAL asked)
          list(APPEND wanted ${s})
        endif()
      endforeach()
    elseif(asked IN_LIST sets)
      list(APPEND wanted ${asked})
    else()
      list(JOIN families ", " f)
      list(JOIN sets ", " s)
      message(FATAL_ERROR "KPQC_ALGORITHMS: unknown algorithm \"${asked}\".  Valid names: all; "
                          "the families ${f}; the parameter sets ${s}.")
    endif()
  endforeach()
  if(NOT wanted)
    message(FATAL_ERROR "KPQC_ALGORITHMS is empty: name at least one parameter set or family (or all)")
  endif()
  set(selected "")
  set(selected_families "")
  set(header "/* Generated by CMake from KPQC_ALGORITHMS=\"${KPQC_ALGORITHMS}\": the table's rows this build holds. */\n")
  foreach(s f IN ZIP_LISTS sets set_families)
    if(s IN_LIST wanted)
      list(APPEND selected ${s})
      list(APPEND selected_families ${f})
    endif()
  endforeach()
  foreach(kind_part hybrids:kem composites:sig)
    string(REPLACE ":" ";" kind_part ${kind_part})
    list(GET kind_part 0 kind)
    list(GET kind_part 1 part)
    kpqc_table_column(names ${kind} name)
    kpqc_table_column(parts ${kind} ${part})
    foreach(n p IN ZIP_LISTS names parts)
      if(p IN_LIST selected)
        list(APPEND selected ${n})
      endif()
    endforeach()
    list(APPEND sets ${names})
  endforeach()
  foreach(n IN LISTS sets)
    if(n IN_LIST selected)
      string(APPEND header "#define KPQC_SELECT_${n}(...) __VA_ARGS__\n")
    else()
      string(APPEND header "#define KPQC_SELECT_${n}(...)\n")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES selected_families)
  set(KPQC_SELECTION_DIR ${CMAKE_BINARY_DIR}/generated PARENT_SCOPE)
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/generated/kpqc_selection.h CONTENT "${header}")
  set(KPQC_SELECTED ${selected} PARENT_SCOPE)
  set(KPQC_SELECTED_FAMILIES ${selected_families} PARENT_SCOPE)
endfunction()
kpqc_table_select()

# kpqc_table_selected(<out> <item>...): the items whose row the build
# selects, for tests that name particular algorithms.  An item is a row's
# name, or ROW=ARG to keep ARG (an alias of ROW, say) when ROW is selected.
function(kpqc_table_selected out)
  set(kept "")
  foreach(item ${ARGN})
    string(REPLACE "=" ";" parts ${item})
    list(GET parts 0 row)
    list(GET parts -1 arg)
    if(row IN_LIST KPQC_SELECTED)
      list(APPEND kept ${arg})
    endif()
  endforeach()
  set(${out} ${kept} PARENT_SCOPE)
endfunction()
