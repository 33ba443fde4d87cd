/* The recorded interval a batch command shows (`pscope list -r FILE`,
 * `pscope show -r FILE`): the file opened, the interval nearest to --at
 * made again, and the line and JSON object that name it. */
#ifndef PS_CMD_REC_OUT_H
#define PS_CMD_REC_OUT_H

#include <json-c/json.h>

#include "record/record.h"

struct rec_out {
	struct rec_file *f;
	size_t i;                  /* the interval shown */
	double asked;              /* the time asked for (the last interval's without --at) */
	struct snap_list *s;       /* interval i, its rates from i-1 */
};

/* Open path and make the interval nearest to at (NULL: the last); what
 * the file's reader noted (a torn tail, not closed) goes to stderr as
 * "pscope CMD: ...". 0; 1 after a failure was printed; 2 after a usage
 * error (a bad TIME) was. */
int rec_out_open(const char *cmd, const char *path, const char *at, struct rec_out *ro);
void rec_out_close(struct rec_out *ro);
/* "Recorded 2026-12-04 02:13:05 (interval 3 of 40, +2.0 s from the start;
 * asked for ...)" */
void rec_out_line(const struct rec_out *ro);
/* {"file", "at", "wall", "interval", "intervals", "asked", "start",
 * "torn", "short_lived_recorded"} */
struct json_object *rec_out_json(const struct rec_out *ro);

/* pscope record --check DIR (rec-check.c): the day files DIR keeps,
 * as text or JSON; the exit status. */
int record_check(const char *dir, unsigned long long max_size, bool json);

#endif
