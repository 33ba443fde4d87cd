"""Checks `pscope stack --json` of tests/targets/py-deadlock.py: the cycle of
two threading.Lock waits, the locks by name and address (the target's own
id()s), the holders, where each waits (file:line), the bystander behind it.
Usage: check-deadlock.py JSON TARGET-OUTPUT SCRIPT [old]  ("old": a CPython
before 3.11, where the Lock is not named and no cycle is claimed)."""
import json
import re
import sys

d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
script = sys.argv[3]
old = len(sys.argv) > 4 and sys.argv[4] == "old"
ids = dict((k, int(v, 16)) for k, v in re.findall(r"(ledger|journal) 0x([0-9a-f]+)", out))
line = next(i + 1 for i, l in enumerate(open(script)) if "LINE:transfer" in l)
by_name = {t.get("python_name"): t for t in d["threads"]}
a, b, by = by_name["teller-a"], by_name["teller-b"], by_name["bystander"]

if old:
    assert d["deadlocks"] == [], d["deadlocks"]
    for t in (a, b, by):
        assert t["idle"] == "lock acquire", t
        assert t["python_lock_unknown"] == "the Lock is named from CPython 3.11 on", t
    sys.exit(0)

assert len(d["deadlocks"]) == 1, d["deadlocks"]
cy = d["deadlocks"][0]
assert len(cy) == 2, cy
want = {a["tid"]: ("journal", b["tid"]), b["tid"]: ("ledger", a["tid"])}
for e in cy:
    name, holder = want[e["tid"]]
    assert e["kind"] == "python_lock", e
    assert e["lock_name"] == name, e
    assert int(e["lock_addr"], 16) == ids[name], (e, ids)
    assert e["waits_for_tid"] == holder, e
    assert e["holder_from"] == "with", e
    assert (e["function"], e["file"], e["line"]) == ("transfer", script, line), e
for t, name, holder in ((a, "journal", b), (b, "ledger", a), (by, "ledger", a)):
    pl = t["python_lock"]
    assert pl["name"] == name and int(pl["lock_addr"], 16) == ids[name], pl
    assert pl["holder_tid"] == holder["tid"] and pl["holder_from"] == "with", pl
assert by["behind_deadlock"] == 1, by
assert "python_lock" not in by_name["MainThread"], by_name["MainThread"]
