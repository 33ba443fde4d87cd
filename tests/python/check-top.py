"""Checks `pscope top --json` of tests/targets/py-threads.py (argv: the JSON
file, the target's source, "busy" or "idle"). Exits 1 with a reason."""
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
src = sys.argv[2]
mode = sys.argv[3]
lines = {}
for no, text in enumerate(open(src), 1):
    m = re.search(r"# LINE:(\w+)", text)
    if m:
        lines[m.group(1)] = no


def fail(msg):
    print(msg)
    sys.exit(1)


if not doc.get("python"):
    fail("not sampled as Python: %r" % {k: doc.get(k) for k in ("event", "python")})
if doc["event"] != "python" or doc["samples"] < 5:  # a loaded machine samples late
    fail("event %r, %d samples" % (doc["event"], doc["samples"]))
rows = doc["functions"]
if any(r["kind"] != "python" for r in rows):
    fail("a native row in the Python view")
mine = {r["name"]: r for r in rows if r["file"] == src}
for name in ("price_rules", "handle", "worker_hot"):
    if name not in mine:
        fail("no row for %s: %r" % (name, [r["name"] for r in rows]))
    if mine[name]["line"] != lines[name]:
        fail("%s at line %d, expected %d" % (name, mine[name]["line"], lines[name]))
top = rows[0]
if mode == "busy":
    if top["name"] != "price_rules" or top["self_pct"] < 95:
        fail("hottest is %s at %.1f%% self, expected price_rules at ~100%%" % (top["name"], top["self_pct"]))
    if mine["handle"]["self_pct"] != 0 or mine["handle"]["total_pct"] < 95:
        fail("handle: self %.1f total %.1f" % (mine["handle"]["self_pct"], mine["handle"]["total_pct"]))
    for idle in ("nap", "wait_lock", "wait_select", "main"):
        if idle in mine:
            fail("idle thread's %s counted without --idle" % idle)
    if doc["idle_skipped"] <= 0:
        fail("no idle samples left out")
else:
    for idle in ("nap", "wait_lock", "wait_select", "main"):
        if idle not in mine:
            fail("--idle: no row for %s" % idle)
        if abs(mine[idle]["self_pct"] - 20) > 6:
            fail("--idle: %s at %.1f%%, expected ~20%% (5 threads)" % (idle, mine[idle]["self_pct"]))
    if abs(mine["price_rules"]["self_pct"] - 20) > 6:
        fail("--idle: price_rules at %.1f%%" % mine["price_rules"]["self_pct"])
    # Four of five threads idle: their samples are counted, and said.
    if doc["idle_skipped"] != 0 or doc["idle_samples"] < doc["samples"] / 2:
        fail("--idle: idle samples %d of %d (skipped %d)" % (doc["idle_samples"], doc["samples"], doc["idle_skipped"]))
if "torn" not in doc:
    fail("no torn count")
