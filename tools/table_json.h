/* kpqc-kat --table-json: the algorithm table (src/algorithms.def) as JSON. */
#ifndef KPQC_TOOLS_TABLE_JSON_H
#define KPQC_TOOLS_TABLE_JSON_H

#include <stdio.h>

void kpqc_table_json(FILE *out);

#endif
