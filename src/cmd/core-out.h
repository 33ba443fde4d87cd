/* What the kernel recorded in a core, for the batch commands that read one
 * (`pscope stack --core`): the text header (signal, command line...), the
 * warnings and the JSON object (core-out.c). */
#ifndef PS_CMD_CORE_OUT_H
#define PS_CMD_CORE_OUT_H

#include <stdio.h>

struct core;
struct json_object;

void core_print_header(FILE *f, const struct core *c);
void core_print_warnings(FILE *f, const char *prog, const struct core *c);
struct json_object *core_json(const struct core *c);

#endif
