/* The sources' bounded histories (src/source/hist.c), and the list
 * source's use of them: CPU% per process and the meters, copied into the
 * snapshots. */
#include "source/hist.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void test_set(void)
{
	struct hist_set h = { 0 };
	float out[HIST_LEN];

	hist_copy(&h, 1, out);
	ok(isnan(out[0]) && isnan(out[HIST_LEN - 1]), "an unknown key: no values");
	ok(hist_push(&h, 1, 10) == 0 && hist_push(&h, 2, 50) == 0, "two keys pushed");
	hist_end_tick(&h);
	hist_push(&h, 1, 20);
	hist_push(&h, 1, 30); /* twice in a tick: the newest */
	hist_push(&h, 2, 60);
	hist_end_tick(&h);
	hist_copy(&h, 1, out);
	ok(isnan(out[HIST_LEN - 3]) && out[HIST_LEN - 2] == 10 && out[HIST_LEN - 1] == 30,
	   "oldest first, the newest last, NaN before the first");
	/* Key 2 not pushed in a tick: forgotten; key 1 kept. */
	hist_push(&h, 1, 40);
	hist_end_tick(&h);
	hist_copy(&h, 2, out);
	ok(isnan(out[HIST_LEN - 1]) && h.n == 1, "a key not pushed in a tick is dropped");
	hist_copy(&h, 1, out);
	ok(out[HIST_LEN - 1] == 40 && out[HIST_LEN - 3] == 10, "the other keeps its values");
	/* Bounded: HIST_LEN values, the oldest go. */
	for (int i = 0; i < 3 * HIST_LEN; i++) {
		hist_push(&h, 1, (float)i);
		hist_end_tick(&h);
	}
	hist_copy(&h, 1, out);
	ok(h.e[0].n == HIST_LEN && out[0] == 2 * HIST_LEN && out[HIST_LEN - 1] == 3 * HIST_LEN - 1,
	   "at most HIST_LEN values a key");
	/* Many keys come and go: the index follows. */
	for (int t = 0; t < 5; t++) {
		for (int k = 0; k < 1000; k++)
			if ((k + t) % 2)
				hist_push(&h, 100 + (uint64_t)k, (float)t);
		hist_end_tick(&h);
	}
	int right = 0;
	for (int k = 0; k < 1000; k++) {
		hist_copy(&h, 100 + (uint64_t)k, out);
		right += (k + 4) % 2 ? out[HIST_LEN - 1] == 4 && isnan(out[HIST_LEN - 2]) : isnan(out[HIST_LEN - 1]);
	}
	is_int(right, 1000, "keys that come and go: each its own values");
	ok(hist_key(42, 7) != hist_key(42, 8) && hist_key(42, 7) != hist_key(43, 7), "a reused PID is another key");
	hist_free(&h);
}

/* Half precision: exact where it can be, nearest elsewhere, NaN kept. */
static void test_half(void)
{
	int exact = 0;
	for (int i = 0; i <= 2048; i++)
		exact += hist_float(hist_half((float)i)) == (float)i;
	is_int(exact, 2049, "integers to 2048 are kept exactly");
	float worst = 0;
	for (float v = 0.001f; v < 60000; v *= 1.01f) {
		float e = fabsf(hist_float(hist_half(v)) - v) / v;
		worst = e > worst ? e : worst;
	}
	ok(worst <= 1.0f / 2048 + 1e-6f, "0.001..60000 within half a unit in the last place (%g)", (double)worst);
	ok(isnan(hist_float(hist_half(NAN))), "NaN stays NaN");
	ok(isinf(hist_float(hist_half(1e6f))) && hist_float(hist_half(65504)) == 65504, "65504 is the largest, above is infinite");
	ok(hist_float(hist_half(0)) == 0 && hist_float(hist_half(-2.5f)) == -2.5f, "zero and a negative value");
	ok(hist_float(hist_half(99.95f)) > 99.9f && hist_float(hist_half(99.95f)) < 100.0f, "a CPU share to three digits");
	ok(hist_half(65519.0f) == 0x7bff && hist_half(65520.0f) == 0x7c00, "rounding at the top: to 65504, then infinite");
	ok(hist_float(hist_half(1e-7f)) > 0 && hist_float(hist_half(1e-9f)) == 0, "subnormals kept, smaller values are zero");
}

int main(void)
{
	test_set();
	test_half();
	return tap_done();
}
