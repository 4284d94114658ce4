# Instruction sets of libkpqc's backends: the build side of the feature
# module (src/common/cpu.h).  A source named *_<isa>.c holds kernels for
# <isa>; it is compiled, with the flags below, only for the processors
# listed, and the library is then built with KPQC_ISA_<ISA> defined so the
# families list its kernel tables.  Elsewhere, and in a build without vector
# paths (KPQC_VECTOR_PATHS=OFF), such files are left out.
#
#   kpqc_isa(<isa> <processor regex> <compiler flags...>)
set(KPQC_ISAS "")
macro(kpqc_isa isa processors)
  list(APPEND KPQC_ISAS ${isa})
  set(KPQC_ISA_PROCESSORS_${isa} "${processors}")
  set(KPQC_ISA_FLAGS_${isa} ${ARGN})
endmacro()

kpqc_isa(avx2 "^(x86_64|AMD64|amd64)$" -mavx2 -mbmi -mbmi2 -mpopcnt)
kpqc_isa(pclmul "^(x86_64|AMD64|amd64)$" -mpclmul -msse4.1)
kpqc_isa(avx512 "^(x86_64|AMD64|amd64)$" -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512ifma -mavx512vbmi -mvpclmulqdq -mpclmul
         -mavx2 -mbmi -mbmi2 -mpopcnt)

# kpqc_isa_filter(<sources var> <defines var>): drops the files of the
# instruction sets this processor does not run, sets the others' flags,
# and appends KPQC_ISA_<ISA> for each instruction set compiled in.
function(kpqc_isa_filter sources_var defines_var)
  set(kept "")
  set(defines ${${defines_var}})
  foreach(isa ${KPQC_ISAS})
    string(TOUPPER ${isa} ISA)
    if(KPQC_VECTOR_PATHS AND CMAKE_SYSTEM_PROCESSOR MATCHES "${KPQC_ISA_PROCESSORS_${isa}}")
      list(APPEND defines KPQC_ISA_${ISA})
      set(on_${isa} ON)
    endif()
  endforeach()
  foreach(src ${${sources_var}})
    set(keep ON)
    foreach(isa ${KPQC_ISAS})
      if(src MATCHES "_${isa}\\.c$")
        if(on_${isa})
          set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${KPQC_ISA_FLAGS_${isa}}")
        else()
          set(keep OFF)
        endif()
      endif()
    endforeach()
    if(keep)
      list(APPEND kept ${src})
    endif()
  endforeach()
  set(${sources_var} ${kept} PARENT_SCOPE)
  set(${defines_var} ${defines} PARENT_SCOPE)
endfunction()
