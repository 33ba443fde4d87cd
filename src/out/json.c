#include "out/json.h"
#include "out/escape.h"

#include <stdlib.h>
#include <string.h>

int out_json_print(FILE *f, struct json_object *obj, int pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE | (pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN);
	int r = fprintf(f, "%s\n", json_object_to_json_string_ext(obj, flags)) < 0 ? -1 : 0;
	json_object_put(obj);
	return r;
}

void out_json_str(struct json_object *obj, const char *key, const char *s)
{
	if (!s) {
		json_object_object_add(obj, key, NULL);
		return;
	}
	size_t len = strlen(s);
	if (utf8_valid(s, len)) {
		json_object_object_add(obj, key, json_object_new_string(s));
		return;
	}
	/* Invalid UTF-8 would make invalid JSON: only those bytes become
	 * U+FFFD, the rest stays raw like every other string. */
	char *r = utf8_repair(s, len);
	json_object_object_add(obj, key, r ? json_object_new_string(r) : NULL);
	free(r);
}

void out_json_int(struct json_object *obj, const char *key, long long v)
{
	json_object_object_add(obj, key, json_object_new_int64(v));
}

void out_json_double(struct json_object *obj, const char *key, double v)
{
	json_object_object_add(obj, key, json_object_new_double(v));
}

void out_json_bool(struct json_object *obj, const char *key, int v)
{
	json_object_object_add(obj, key, json_object_new_boolean(v));
}

void out_json_process(struct json_object *obj, long long pid, unsigned long long starttime, const char *comm,
		      const char *user, const char *cmdline)
{
	out_json_int(obj, "pid", pid);
	out_json_int(obj, "starttime", (long long)starttime);
	out_json_str(obj, "comm", comm);
	out_json_str(obj, "user", user);
	out_json_str(obj, "cmdline", cmdline);
}
