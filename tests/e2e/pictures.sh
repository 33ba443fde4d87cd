#!/bin/bash
# pscope top's pictures of a known profile (hotloop: loop calls hot_work
# 75% and cold_work 25%), opened by their own readers: the SVG well-formed
# (xmllint) with every frame of the folded output at its count, and run in
# headless Chromium (its script's search); pprof read by `go tool pprof
# -top` with the functions and counts of `pscope top --json`, and by
# `-raw` with the target's mapping and build-id, hot_work's addresses in
# hot_work and its file and lines; speedscope's
# JSON in the structure of its schema; and a write that fails leaves no
# file under the name.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d /tmp/pscope-pic.XXXXXX)
chmod 755 "$tmp"
at_exit "rm -rf $tmp"

start_target hotloop -w
"$PSCOPE" top "$TPID" --duration 120 --samples 300 --freq 499 --json --folded "$tmp/a.folded" --svg "$tmp/a.svg" \
	--pprof "$tmp/a.pb.gz" --speedscope "$tmp/a.json" >"$tmp/top.json" 2>"$tmp/err"
ok $? "pscope top --svg --pprof --speedscope (with --folded and --json) exits 0"
sed 's/^/#   /' "$tmp/err"

# ---- SVG ----
check "the SVG is well-formed XML" xmllint --noout "$tmp/a.svg"
check "the SVG holds no external reference (self-contained)" sh -c "! grep -Eq '(href|src)=|@import|url\\(' '$tmp/a.svg'"
check "every frame of the folded output is in the SVG, at its count" python3 -c '
import sys, re, html, collections
want = collections.Counter()
for line in open(sys.argv[1]):
    if line.startswith("#"): continue
    path, n = line.rstrip("\n").rsplit(" ", 1)
    fr = path.split(";")
    for d in range(len(fr)):
        want[(d + 1, tuple(fr[:d + 1]))] += int(n)
got = {}
stack = []
for m in re.finditer(r"<g class=\"f\" data-x=\"(\d+)\" data-n=\"(\d+)\" data-d=\"(\d+)\"[^>]*><title>([^<]*)</title>", open(sys.argv[2]).read()):
    d, name = int(m.group(3)), html.unescape(m.group(4))
    stack = stack[:d] + [name]
    if d: got[(d, tuple(stack[1:]))] = int(m.group(2))
assert want and dict(want) == got, (len(want), len(got), [k for k in want if want[k] != got.get(k)][:5])
' "$tmp/a.folded" "$tmp/a.svg"
size=$(stat -c %s "$tmp/a.svg")
[ "$size" -lt 1000000 ]
ok $? "the SVG of a small profile is small ($size bytes)"

if command -v chromium >/dev/null 2>&1; then
	browse() { # browse URL OUT: the DOM after the script ran
		timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-dev-shm-usage --no-first-run --disable-extensions --user-data-dir="$tmp/chromium" \
			"$@" 2>>"$tmp/chromium.err"
	}
	browse --dump-dom "file://$tmp/a.svg?s=cold_work" >"$tmp/dom.xml"
	check "Chromium loads the SVG: as many frames in its DOM as in the file" sh -c \
		"[ \$(grep -o '<g class=\"f[ \"]' '$tmp/dom.xml' | wc -l) -eq \$(grep -o '<g class=\"f\"' '$tmp/a.svg' | wc -l) ] && [ \$(grep -c '<g class=\"f\"' '$tmp/a.svg') -gt 4 ]"
	check "its search (?s=cold_work) highlights cold_work only and reports its share" python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
hl = re.findall(r"<g class=\"f hl\"[^>]*><title>([^<]*)</title>", dom)
assert hl and set(hl) == {"cold_work"}, hl
m = re.search(r"id=\"matched\"[^>]*data-n=\"(\d+)\"[^>]*>[^<]*?([0-9.]+)%<", dom)
assert m, "no matched share"
# every cold_work frame (one per call path; it calls nothing of its own name)
cold = sum(int(n) for n in re.findall(r"data-n=\"(\d+)\" data-d=\"\d+\"[^>]*><title>cold_work</title>", dom))
assert int(m.group(1)) == cold, (m.group(1), cold)
total = int(re.search(r"data-total=\"(\d+)\"", dom).group(1))
assert abs(float(m.group(2)) - 100.0 * int(cold) / total) < 0.06, m.group(2)
' "$tmp/dom.xml"
	browse --screenshot="$tmp/a.png" --window-size=1220,300 "file://$tmp/a.svg" >/dev/null
	check "Chromium renders it to a PNG with the frames' colours in it" python3 -c '
import sys, zlib, struct
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
w, h, depth, ctype = struct.unpack(">IIBB", b[16:26])
data, i = b"", 8
while i < len(b):
    n, t = struct.unpack(">I4s", b[i:i + 8]); 
    if t == b"IDAT": data += b[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(data)
bpp = {2: 3, 6: 4}[ctype]
stride = w * bpp + 1
# Filtered rows: look for the reddish-orange of native frames (r > 200, b < 60) in unfiltered or Sub rows
rows, prev = [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        up = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + up) & 255
        elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    prev = line; rows.append(line)
warm = sum(1 for line in rows for x in range(0, len(line), bpp) if line[x] > 200 and line[x + 2] < 60)
assert warm > 1000, warm
' "$tmp/a.png"
else
	skip "chromium is not installed (apt-get install chromium): the SVG is not run in a browser"
	skip "chromium: search"
	skip "chromium: PNG"
fi

# ---- pprof ----
check "the pprof file is gzip'd" sh -c "gzip -t '$tmp/a.pb.gz'"
if command -v go >/dev/null 2>&1; then
	HOME=$tmp GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS=-mod=mod go tool pprof -top -nodecount=100 "$tmp/a.pb.gz" \
		>"$tmp/pprof.txt" 2>"$tmp/pprof.err"
	ok $? "go tool pprof -top reads it"
	check "pprof's top functions and counts are pscope top's" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
ours = {f["name"]: f["samples"] for f in d["functions"] if f["samples"]}
theirs = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$", line)
    if m and int(m.group(1)): theirs[m.group(3).strip()] = int(m.group(1))
assert "hot_work" in theirs and "cold_work" in theirs, theirs
# pprof drops the _[k]-less kernel names as they are; compare by name
assert theirs == ours, (theirs, ours)
m = re.search(r"Total samples = (\d+)", open(sys.argv[2]).read())
assert m and int(m.group(1)) == sum(ours.values()), (m and m.group(1), sum(ours.values()))
' "$tmp/top.json" "$tmp/pprof.txt"
	sed 's/^/#   /' "$tmp/pprof.err" | head -5
	# Its raw dump: the target's mapping with the file's build-id, hot_work's
	# locations at addresses inside hot_work (by the file's symbol table and
	# load segments), functions with their file and line.
	HOME=$tmp GOCACHE=$tmp/gocache GOPATH=$tmp/gopath go tool pprof -raw "$tmp/a.pb.gz" >"$tmp/raw.txt" 2>>"$tmp/pprof.err"
	ok $? "go tool pprof -raw reads it"
	exe=$(readlink -f "/proc/$TPID/exe")
	readelf -nW "$exe" | sed -n 's/.*Build ID: *//p' >"$tmp/bid"
	nm -S --defined-only "$exe" | awk '$4 == "hot_work" { print $1, $2 }' >"$tmp/sym"
	readelf -lW "$exe" | awk '$1 == "LOAD" && / E / { print $2, $3 }' >"$tmp/load"
	check "pprof: the target's mapping with its build-id, hot_work's locations inside hot_work" python3 -c '
import re, sys
raw, exe = open(sys.argv[1]).read(), sys.argv[2]
bid = open(sys.argv[3]).read().strip()
start, size = (int(x, 16) for x in open(sys.argv[4]).read().split())
off, vaddr = (int(x, 16) for x in open(sys.argv[5]).read().split())
maps = {}
for m in re.finditer(r"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S+) ?(\S*)", raw.split("\nMappings\n")[1], re.M):
    maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16), m.group(5), m.group(6))
mine = [k for k, v in maps.items() if v[3] == exe]
assert mine and maps[mine[0]][4] == bid and bid, (maps, exe, bid)
locs = re.findall(r"^\s*\d+: (0x[0-9a-f]+) M=(\d+) hot_work (\S+):(\d+) s=(\d+)", raw, re.M)
assert locs, raw
for a, m, path, line, first in locs:
    lo, hi, foff, _, _ = maps[m]
    v = int(a, 16) - lo + foff - off + vaddr
    assert lo <= int(a, 16) < hi and start <= v < start + size, (a, m, hex(v), hex(start), size)
    assert path.endswith("hotloop.c") and int(line) >= int(first) > 0, (path, line, first)
' "$tmp/raw.txt" "$exe" "$tmp/bid" "$tmp/sym" "$tmp/load"
else
	skip "go is not installed (apt-get install golang-go): pprof not read by its own reader"
	skip "go tool pprof: counts"
	skip "go tool pprof -raw"
	skip "go tool pprof: mappings, addresses, lines"
fi

# ---- speedscope ----
check "speedscope: the structure of its file-format schema" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
assert all(isinstance(f["name"], str) for f in frames)
names = [f["name"] for f in frames]
assert "hot_work" in names and "cold_work" in names
total = 0
for p in d["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == "none" and isinstance(p["name"], str)
    assert len(p["samples"]) == len(p["weights"]) and p["startValue"] == 0
    assert all(0 <= i < len(frames) for s in p["samples"] for i in s)
    assert p["endValue"] == sum(p["weights"])
    total += sum(p["weights"])
folded = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]) if not l.startswith("#"))
assert total == folded, (total, folded)
' "$tmp/a.json" "$tmp/a.folded"
schema=$(npm root -g 2>/dev/null)/speedscope/dist/release/file-format-schema.json
if [ -f "$schema" ] && python3 -c 'import jsonschema' 2>/dev/null; then
	check "speedscope: valid against its published schema" python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$tmp/a.json" "$schema"
else
	skip "speedscope's schema (npm install -g speedscope) or python3-jsonschema not installed: structure checked only"
fi

# ---- a write that cannot finish leaves nothing under the name ----
if [ -w /dev/full ] && [ "$(id -u)" = 0 ]; then
	mkdir "$tmp/small"
	if mount -t tmpfs -o size=64k tmpfs "$tmp/small" 2>/dev/null; then
		at_exit "umount $tmp/small 2>/dev/null"
		head -c 60000 /dev/zero >"$tmp/small/fill"
		"$PSCOPE" top "$TPID" --duration 60 --samples 200 --pprof "$tmp/small/p.pb.gz" --svg "$tmp/small/p.svg" \
			>/dev/null 2>"$tmp/full.err"
		[ $? -eq 1 ] && grep -q 'No space left' "$tmp/full.err"
		ok $? "a full disk: pscope top fails and says why"
		sed 's/^/#   /' "$tmp/full.err"
		check "no partial file under the final name, no temporary file left" sh -c \
			"[ ! -e '$tmp/small/p.svg' ] && [ -z \"\$(ls -A '$tmp/small' | grep -vx -e fill -e p.pb.gz)\" ]"
		umount "$tmp/small"
	else
		skip "cannot mount a small tmpfs: full-disk write not tested"
		skip "full disk: no partial file"
	fi
fi

# ---- bad arguments ----
"$PSCOPE" top "$TPID" --duration 1 --svg /nonexistent-dir/x.svg >/dev/null 2>"$tmp/bad.err"
[ $? -eq 1 ] && grep -q 'nonexistent-dir' "$tmp/bad.err"
ok $? "an SVG into a missing directory fails, naming it"
done_testing
