/* The one hash table (src/hmap.c): lookups, overwrites, keys that collide
 * (probing past the end of the table), growth, clearing, walking,
 * pointer values and the value that cannot be stored. */
#include "hmap.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>

/* n keys whose home slot in a table of cap slots is `slot`. */
static void colliding(uint64_t *keys, int n, size_t cap, size_t slot)
{
	int k = 0;
	for (uint64_t v = 1; k < n; v++)
		if ((hmap_mix(v) & (cap - 1)) == slot)
			keys[k++] = v;
}

static void test_basic(void)
{
	struct hmap m = { 0 };

	ok(hmap_get(&m, 42) == HMAP_NONE, "an empty table has nothing");
	ok(hmap_put(&m, 42, 7) == 0 && hmap_get(&m, 42) == 7, "a value put is found");
	ok(hmap_put(&m, 42, 8) == 0 && hmap_get(&m, 42) == 8 && m.n == 1, "putting a key again replaces its value");
	ok(hmap_put(&m, 0, 0) == 0 && hmap_get(&m, 0) == 0, "key 0 and value 0 are ordinary");
	ok(hmap_put(&m, UINT64_MAX, 1) == 0 && hmap_get(&m, UINT64_MAX) == 1, "so is the key UINT64_MAX");
	is_int(hmap_put(&m, 5, HMAP_NONE), -EINVAL, "HMAP_NONE is no value and is refused");
	ok(hmap_get(&m, 5) == HMAP_NONE && m.n == 3, "and nothing was stored");
	int x;
	ok(hmap_put_ptr(&m, 9, &x) == 0 && hmap_get_ptr(&m, 9) == &x && hmap_get_ptr(&m, 10) == NULL,
	   "pointer values; NULL for an absent key");
	hmap_free(&m);
	ok(m.cap == 0 && m.n == 0 && hmap_get(&m, 42) == HMAP_NONE, "freed: empty again");
}

static void test_collisions(void)
{
	struct hmap m = { 0 };
	uint64_t keys[12];

	hmap_put(&m, 1, 1); /* the first put sizes the table */
	hmap_clear(&m);
	size_t cap = m.cap;
	/* Twelve keys (3/4 of the table) all wanting the last slot: probing
	 * wraps to the start. */
	colliding(keys, 12, cap, cap - 1);
	int bad = 0;
	for (int i = 0; i < 12; i++)
		bad += hmap_put(&m, keys[i], (uint64_t)i * 10) < 0;
	for (int i = 0; i < 12; i++)
		bad += hmap_get(&m, keys[i]) != (uint64_t)i * 10;
	ok(!bad && m.cap == cap && m.n == 12, "12 keys on one slot of %zu, probing past the end: all found", cap);
	uint64_t other[13];
	colliding(other, 13, cap, cap - 1);
	ok(hmap_get(&m, other[12]) == HMAP_NONE, "an absent key on the same slot is not found");
	ok(hmap_put(&m, other[12], 99) == 0 && m.cap == cap * 2 && hmap_get(&m, other[12]) == 99,
	   "the 13th grows the table");
	bad = 0;
	for (int i = 0; i < 12; i++)
		bad += hmap_get(&m, keys[i]) != (uint64_t)i * 10;
	is_int(bad, 0, "every colliding key survives the growth");
	hmap_free(&m);
}

static void test_growth(void)
{
	struct hmap m = { 0 };
	const uint64_t n = 100000;
	int bad = 0;

	/* Keys that differ in their high bits only (addresses, shifted ids). */
	for (uint64_t i = 0; i < n; i++)
		bad += hmap_put(&m, i << 40 | 0x1000, i) < 0;
	for (uint64_t i = 0; i < n; i++)
		bad += hmap_get(&m, i << 40 | 0x1000) != i;
	ok(!bad && m.n == n, "100000 keys kept through every growth");
	ok((m.cap & (m.cap - 1)) == 0 && m.n * 4 <= m.cap * 3, "the table stays a power of two, at most 3/4 full");
	ok(hmap_get(&m, 0x1001) == HMAP_NONE && hmap_get(&m, n << 40 | 0x1000) == HMAP_NONE, "absent keys");

	uint64_t k, v, sum = 0, count = 0;
	for (size_t at = 0; hmap_next(&m, &at, &k, &v);) {
		bad += k != (v << 40 | 0x1000);
		sum += v;
		count++;
	}
	ok(!bad && count == n && sum == n * (n - 1) / 2, "the walk visits every entry once");
	size_t cap = m.cap;
	hmap_clear(&m);
	ok(m.n == 0 && m.cap == cap && hmap_get(&m, 5ull << 40 | 0x1000) == HMAP_NONE, "cleared: empty, memory kept");
	size_t at = 0;
	ok(!hmap_next(&m, &at, &k, &v), "a cleared table walks nothing");
	hmap_free(&m);
}

int main(void)
{
	test_basic();
	test_collisions();
	test_growth();
	return tap_done();
}
