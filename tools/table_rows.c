/*
 * The algorithm table's rows as JSON on stdout, without the library:
 * compiled with KPQC_TABLE_ROWS_ONLY for the build machine by
 * cmake/AlgorithmTable.cmake at configure time, so CMake reads the table
 * as the C preprocessor does (in a cross build too) instead of parsing
 * src/algorithms.def itself.
 */
#include "table_json.h"

int main(void) {
    kpqc_table_json(stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}
