"""Checks `pscope stack --json` of tests/targets/py-threads.py (argv: the
JSON file, the target's source file, the view). Exits 1 with a reason."""
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
src = sys.argv[2]
view = sys.argv[3] if len(sys.argv) > 3 else "mixed"
lines = {}
for no, text in enumerate(open(src), 1):
    m = re.search(r"# LINE:(\w+)", text)
    if m:
        lines[m.group(1)] = no


def fail(msg):
    print(msg)
    sys.exit(1)


if not doc.get("python") or doc["python"].get("error"):
    fail("no Python read: %r" % doc.get("python"))
want = {
    "hot-worker": (["price_rules", "handle", "worker_hot"], None),
    "sleeper": (["nap"], "time.sleep"),
    "locked": (["wait_lock"], "lock acquire"),
    "selector": (["wait_select"], "select"),
    "main": (["main", "<module>"], "time.sleep"),
}
seen = set()
gil = []
for t in doc["threads"]:
    py = [f for f in t["frames"] if f["kind"] == "python"]
    nat = [f for f in t["frames"] if f["kind"] == "native"]
    if view == "python" and nat:
        fail("tid %d: native frames in the Python view" % t["tid"])
    if view == "native":
        if py:
            fail("tid %d: Python frames in the native view" % t["tid"])
        continue
    if view == "mixed" and any(f["function"] == "_PyEval_EvalFrameDefault" for f in nat):
        fail("tid %d: an eval frame left in the mixed view" % t["tid"])
    if t["gil"]:
        gil.append(t["tid"])
    target = [f for f in py if f["file"] == src]
    names = [f["function"] for f in target]
    for label, (chain, idle) in want.items():
        if names == chain:
            seen.add(label)
            for f in target:
                key = f["function"] if f["function"] != "<module>" else None
                if key and f["line"] != lines[key]:
                    fail("%s: %s at line %d, expected %d" % (label, key, f["line"], lines[key]))
                if f["qualname"] != f["function"]:
                    fail("%s: qualname %r" % (label, f["qualname"]))
            if t["python_name"] != ("MainThread" if label == "main" else label):
                fail("%s: python_name %r" % (label, t["python_name"]))
            if t["idle"] != idle:
                fail("%s: idle %r, expected %r" % (label, t["idle"], idle))
            if label == "hot-worker" and not t["gil"]:
                fail("the hot thread does not hold the GIL")
            if label != "hot-worker" and py[-1]["file"] != src and "threading" not in py[-1]["file"]:
                fail("%s: outermost frame %r" % (label, py[-1]))
if view != "native":
    missing = set(want) - seen
    if missing:
        fail("threads not found with their Python stacks: %s" % ", ".join(sorted(missing)))
    if len(gil) != 1:
        fail("GIL marked on %d threads" % len(gil))
