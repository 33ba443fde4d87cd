/* JSON output through json-c: no hand-made escaping anywhere. */
#ifndef PS_OUT_JSON_H
#define PS_OUT_JSON_H

#include <json-c/json.h>
#include <stdio.h>

/* Print obj (pretty when pretty != 0) followed by a newline, then put it. */
int out_json_print(FILE *f, struct json_object *obj, int pretty);
/* obj[key] = string / int / double / bool (NULL strings become null). */
void out_json_str(struct json_object *obj, const char *key, const char *s);
void out_json_int(struct json_object *obj, const char *key, long long v);
void out_json_double(struct json_object *obj, const char *key, double v);
void out_json_bool(struct json_object *obj, const char *key, int v);
/* The identity of a process, the same keys wherever a process is written
 * (pscope list, pscope show): pid, starttime (clock ticks after boot),
 * comm, user, cmdline. */
void out_json_process(struct json_object *obj, long long pid, unsigned long long starttime, const char *comm,
		      const char *user, const char *cmdline);

#endif
