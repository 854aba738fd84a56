#!/usr/bin/env bash
# test_proof.sh: `dab solve POS --proof DIR`: run, resume, verify, re-check,
# torn and tampered records, options (docs/proofs.md).
source "$(dirname "$0")/clitest.sh"
# a finished proof is stored in its board's tablebase file: here, never in
# the user's data/tb/
mkdir -p "$T/tb"
export DAB_TB_NO_PROJECT=1 DAB_TB_PATH="$T/tb"

P=$T/p33
# a new proof needs a claim
run solve 3x3 --proof "$P" --depth 2
check "new proof without --claim is refused" test "$rc" = 2
check "... and says so" grep -q -- "--claim" <<<"$err"
check "... and writes nothing" test ! -e "$P/proof.txt"

# a full run: 3x3 = -3 (known-values.md)
run solve 3x3 --proof "$P" --claim =-3 --depth 2 --hash 64M
check "full run exits 0" test "$rc" = 0
check "full run proves it" grep -q ": proved" <<<"$out"
check "proof.txt written" grep -q "^depth 2" "$P/proof.txt"
check "README written" test -s "$P/README.md"
check "records written" test "$(cat "$P"/rec-*.txt | grep -vc '^#')" -gt 3
run solve 3x3 --proof "$P" --verify
check "verify proves it" test "$rc" = 0
check "verify says so" grep -q "^verified" <<<"$out"
run solve 3x3 --proof "$P" --verify --json
check "verify json state" test "$(json_get "$out" 'd["state"]')" = proved
check "verify json value" test "$(json_get "$out" 'd["value"]')" = -3
run solve 3x3 --proof "$P" --verify --recheck 1000 --seed 7 --hash 64M --json
check "honest records pass the re-check" test "$rc" = 0
check "every record re-checked" test "$(json_get "$out" 'd["rechecked"]==d["records"] and d["recheck_wrong"]==0')" = True

# what a resumed run must refuse
run solve 3x3 --proof "$P" --depth 3
check "other depth refused" test "$rc" = 2
check "... naming the depth" grep -q "depth 2" <<<"$err"
run solve 3x3 --proof "$P" --claim =-1
check "other claim refused" test "$rc" = 2
run solve 3x3@0 --proof "$P"
check "other root refused" test "$rc" = 2
run solve 3x3 --proof "$T/none" --verify
check "verify of no proof fails" test "$rc" = 1
run solve 3x3 --proof "$P" --recheck 3
check "--recheck without --verify refused" test "$rc" = 2
run solve 3x3 --proof "$P" --part 2/2
check "bad --part refused" test "$rc" = 2
run solve 3x3 --proof "$P" --budget x
check "bad --budget refused" test "$rc" = 2

# a wrong claim is refuted: 3x3 >= -1
run solve 3x3 --proof "$T/wrong" --claim '>=-1' --depth 2 --hash 64M --json
check "wrong claim: state refuted" test "$(json_get "$out" 'd["state"]')" = refuted
run solve 3x3 --proof "$T/wrong" --verify
check "wrong claim does not verify" test "$rc" = 1
check "... and says refuted" grep -q "REFUTE" <<<"$out"

# resume: nothing solved under a spent budget, then a torn last line
Q=$T/q
run solve 3x4 --proof "$Q" --claim =0 --depth 2 --budget 0.001 --json
check "zero budget: open" test "$(json_get "$out" 'd["state"]+str(d["run"]["solved"])')" = open0
run solve 3x4 --proof "$Q" --list
nlist=$(grep -c . <<<"$out")
check "list shows open subproblems" test "$nlist" -gt 5
run solve 3x4 --proof "$Q" --list --part 0/2
n0=$(grep -c . <<<"$out")
run solve 3x4 --proof "$Q" --list --part 1/2
n1=$(grep -c . <<<"$out")
check "--part splits the list" test "$((n0 + n1))" = "$nlist" -a "$n0" -gt 0 -a "$n1" -gt 0
run solve 3x4 --proof "$Q" --part 1/2 --hash 64M --json
check "part 1/2 leaves the proof open" test "$(json_get "$out" 'd["state"]')" = open
check "part 1/2 solved its share" test "$(json_get "$out" 'd["run"]["solved"]')" = "$n1"
run solve 3x4 --proof "$Q" --hash 64M --json
check "resume completes the proof" test "$(json_get "$out" 'd["state"]')" = proved
check "resume solved only the rest" test "$(json_get "$out" 'd["run"]["solved"]')" = "$n0"
f=$(ls "$Q"/rec-*.txt | tail -n 1)
head -c -10 "$f" > "$T/cut" && cat "$T/cut" > "$f"
run solve 3x4 --proof "$Q" --verify
check "torn line: not verified" test "$rc" = 1
check "torn line reported" grep -q "torn" <<<"$err"
check "the missing subproblem named" grep -q "still open" <<<"$out"
run solve 3x4 --proof "$Q" --hash 64M --json
check "resume after a torn line solves one" test "$(json_get "$out" 'd["run"]["solved"]')" = 1
run solve 3x4 --proof "$Q" --verify
check "then it verifies" test "$rc" = 0
# --recheck-nodes: a re-check that needs more nodes is skipped and counted, not failed
run solve 3x4 --proof "$Q" --verify --recheck 1000 --recheck-nodes 100000 --seed 3 --hash 64M --json
check "--recheck-nodes: verified" test "$rc" = 0
check "--recheck-nodes: every record re-checked or skipped, none wrong" \
  test "$(json_get "$out" 'd["rechecked"]+d["recheck_skipped"]==d["records"] and d["recheck_wrong"]==0')" = True
check "--recheck-nodes: the big ones skipped, the small ones re-checked" \
  test "$(json_get "$out" 'd["recheck_skipped"]>0 and d["rechecked"]>0')" = True
run solve 3x4 --proof "$Q" --verify --recheck-nodes 5
check "--recheck-nodes without --recheck refused" test "$rc" = 2

# tampering: flip one record (consistently, so only a re-check sees it)
$PY - "$P" <<'PY'
import glob, re, sys
f = sorted(glob.glob(sys.argv[1] + "/rec-*.txt"))[0]
lines = open(f).read().split("\n")
for i, l in enumerate(lines):
    if not l or l[0] == "#": continue
    pos, claim, res, bound, rest = l.split(" ", 4)
    b = int(claim[2:])
    if claim[:2] == ">=":
        nb = ("<=%+d" % (b - 2)) if res == "proved" else (">=%+d" % b)
    else:
        nb = (">=%+d" % (b + 2)) if res == "proved" else ("<=%+d" % b)
    lines[i] = " ".join([pos, claim, "refuted" if res == "proved" else "proved", nb, rest])
    break
open(f, "w").write("\n".join(lines))
PY
run solve 3x3 --proof "$P" --verify --recheck 1000 --hash 64M
check "tampered record: re-check fails" test "$rc" = 1
check "... naming the bad record" grep -q "BAD RECORD" <<<"$err"

# --direct: a node two plies above the split proved as one search
run solve 3x4 --proof "$T/d1" --claim =0 --depth 4 --hash 64M --json
r1=$(json_get "$out" 'd["records"]')
run solve 3x4 --proof "$T/d2" --claim =0 --depth 4 --direct 30 --hash 64M --json
check "--direct proves it" test "$(json_get "$out" 'd["state"]')" = proved
check "--direct needs fewer records" test "$(json_get "$out" 'd["records"]')" -lt "$r1"
run solve 3x4 --proof "$T/d2" --verify
check "--direct proof verifies" test "$rc" = 0
# the finished proof went into 3x4's solved store: dab solve answers at once
check "the proved value is stored" grep -q "^stored: the proved bounds" <<<"$out"
run solve 3x4 --value-only --json
check "... and dab solve answers from the store" test "$(json_get "$out" 'd["source"]+str(d["value"])')" = stored0
run solve 3x4 --proof "$T/d2" --verify --no-store --tb "$T/tb2"
check "--no-store writes nothing" bash -c '! grep -q "^stored" <<<"$1" && test ! -e "$2"' _ "$out" "$T/tb2/3x4.dab"
# the estimate by subtrees: drop one subtree's record and add a given-up
# attempt on another of the same kind (claim direction); then the ETA is
# the open subtree x the mean CPU time (seconds x threads) of the attempts
# of its kind, the given-up one included
cp -r "$T/d2" "$T/d2open"
$PY - "$T/d2open" > "$T/d2mean" <<'PY'
import glob, sys
f = sorted(glob.glob(sys.argv[1] + "/rec-*.txt"))[0]
lines = open(f).read().split("\n")
def is_two(l):
    return l and l[0] != "#" and l.split()[0].split(":")[1].count("1") == 2
two = [i for i, l in enumerate(lines) if is_two(l)]
dropped = lines[two[-1]].split()
kind = dropped[1][:2]
other = next(lines[i].split() for i in two[:-1] if lines[i].split()[1][:2] == kind)
del lines[two[-1]]
lines.insert(0, "# open direct %s %s abandoned after seconds=2.5 nodes=1 threads=3" % (other[0], other[1]))
open(f, "w").write("\n".join(lines))
cpu, all_cpu = [2.5 * 3], []
for l in lines:
    if is_two(l):
        kv = dict(x.split("=", 1) for x in l.split()[4:] if "=" in x)
        all_cpu.append(float(kv["seconds"]) * int(kv["threads"]))
        if l.split()[1][:2] == kind:
            cpu.append(all_cpu[-1])
print(sum(all_cpu) / len(all_cpu), sum(cpu) / len(cpu), "le" if kind == "<=" else "ge")
PY
read -r mean_all mean_kind kind < "$T/d2mean"
run solve 3x4 --proof "$T/d2open" --verify --no-store --json
check "a dropped subtree record reopens the proof" test "$rc" = 1
check "estimate: the mean CPU seconds of the recorded subtrees" \
  test "$(json_get "$out" "d['subtrees_open']==1 and d['subtrees_open_$kind']==1 and abs(d['subtree_mean_cpu_seconds']-$mean_all)<2e-3")" = True
check "... and the ETA: the open one x the mean attempt of its kind, given up ones included" \
  test "$(json_get "$out" "d['subtree_given_up_$kind']==1 and abs(d['subtree_attempt_mean_cpu_seconds_$kind']-$mean_kind)<2e-3 and abs(d['subtree_eta_cpu_seconds']-$mean_kind)<0.01")" = True
# the measured rate: date d2open's lines a second apart (the given-up
# note last), ask for the rate over the newest third of the recorded CPU
# time, and compare with --verify on a copy that holds only the lines dated
# up to where that window starts: the open leaves then against now, and
# the CPU time (records and given-up searches) in between
cp -r "$T/d2open" "$T/d2rate"
mkdir -p "$T/d2then"
cp "$T/d2rate/proof.txt" "$T/d2then/"
$PY - "$T/d2rate" "$T/d2then" > "$T/d2win" <<'PY'
import glob, os, re, sys
src, then = sys.argv[1], sys.argv[2]
f = sorted(glob.glob(src + "/rec-*.txt"))[0]
lines = open(f).read().split("\n")
recs, n = [], 0
for i, l in enumerate(lines):
    if not l or (l[0] == "#" and not l.startswith("# open")):
        continue
    d = "2026-01-01T23:59:59Z" if l[0] == "#" else "2026-01-01T00:%02d:%02dZ" % (n // 60, n % 60)
    n += l[0] != "#"
    lines[i] = re.sub(r" date=\S+", "", l) + " date=" + d
    if l[0] != "#":
        kv = dict(x.split("=", 1) for x in l.split()[4:] if "=" in x)
        recs.append((d, float(kv["seconds"]) * int(kv["threads"])))
open(f, "w").write("\n".join(lines))
recs.sort(reverse=True)
# the window as dab will read it back from the printed text: rounded
# differently, it can end the walk below on the other side of a run of
# 0.000 s records (an intermittent failure on a loaded machine)
window = float("%.6f" % max(sum(c for _, c in recs[: len(recs) // 3]), 0.001))
cpu, i = 0.0, 0
while i < len(recs) and cpu < window:  # the window rule of the summary
    cpu += recs[i][1]
    i += 1
since = recs[i][0]
keep = [l for l in lines if not re.search(r" date=(\S+)", l) or re.search(r" date=(\S+)", l).group(1) <= since]
open(os.path.join(then, os.path.basename(f)), "w").write("\n".join(keep))
print(repr(window), since)
PY
read -r window since < "$T/d2win"
run solve 3x4 --proof "$T/d2then" --verify --no-store --json
then_json=$out
run solve 3x4 --proof "$T/d2rate" --verify --no-store --json --rate-window "$window"
check "given-up searches count as CPU time (2.5 s x 3 threads)" \
  test "$(json_get "$out" "abs(d['given_up_cpu_seconds']-7.5)<1e-9")" = True
check "the measured rate starts where the window of CPU time does" \
  test "$(json_get "$out" "d['rate_since']")" = "$since"
check "... counts the open leaves closed since, net" \
  test "$(json_get "$out" "d['rate_leaves_closed']==$(json_get "$then_json" "d['open']")-d['open'] and d['rate_leaves_closed']>0")" = True
check "... against the CPU time since, the given-up search included" \
  test "$(json_get "$out" "abs(d['rate_window_cpu_seconds']-(d['cpu_seconds']+d['given_up_cpu_seconds']-$(json_get "$then_json" "d['cpu_seconds']+d['given_up_cpu_seconds']")))<2e-3 and d['rate_window_cpu_seconds']>7.5")" = True
check "... and the ETA is the open leaves at that rate" \
  test "$(json_get "$out" "abs(d['rate_eta_cpu_seconds']-d['open']*d['rate_window_cpu_seconds']/d['rate_leaves_closed'])<1e-2")" = True
cp -r "$T/d2rate" "$T/d2rate2"
run solve 3x4 --proof "$T/d2rate2" --budget 0.001 --no-store --rate-window "$window"
check "the run's summary gives the rate and the given-up time" \
  bash -c 'grep -q "^    given-up searches included, closed [1-9][0-9]* open leaves net)" <<<"$1" && grep -q "(+ 0.00 in searches given up)" <<<"$1"' _ "$out"
# a direct attempt that runs out of time is noted, then its leaves follow
run solve 4x4 --proof "$T/d3" --claim =0 --depth 4 --direct 0.3 --budget 1.2 --hash 64M
check "--direct gives up on a big node" grep -q "abandoned direct" <<<"$out"
check "... noted in the records" grep -q "^# open direct 4x4:" "$T"/d3/rec-*.txt
# the next run reads the note: it splits that node at once (the records
# are dropped and the notes kept, so that the given-up node is the first
# open one again however far the first run got into its leaves)
sed -i '/^[^#]/d' "$T"/d3/rec-*.txt
run solve 4x4 --proof "$T/d3" --direct 0.3 --budget 1 --hash 64M
check "a later run skips the given-up direct search" grep -q "skipping direct 4x4:.*gave up after" <<<"$out"
run solve 4x4 --proof "$T/d3" --direct 60 --budget 1 --hash 64M
check "... unless it may run longer now" bash -c '! grep -q "skipping direct" <<<"$1"' _ "$out"

# a leaf search that runs past --leaf-limit is noted and split: its
# descendants two plies down become the subproblems, and the proof completes
run solve 3x4 --proof "$T/s1" --claim =0 --depth 1 --leaf-limit 0.02 --hash 64M
check "--leaf-limit gives up on a big leaf and splits it" grep -q "abandoned 3x4:.*splitting it" <<<"$out"
check "... noted in the records" grep -q "^# open 3x4:" "$T"/s1/rec-*.txt
check "... and the proof completes below it" grep -q ": proved" <<<"$out"
check "records below the split depth" test "$(awk '!/^#/ {split($1, a, ":"); if (gsub(/1/, "", a[2]) > 1) c++} END {print c + 0}' "$T"/s1/rec-*.txt)" -gt 0
run solve 3x4 --proof "$T/s1" --verify
check "a split proof verifies from the directory" test "$rc" = 0
sed -i '/^# open /d' "$T"/s1/rec-*.txt
run solve 3x4 --proof "$T/s1" --verify
check "without the notes the split leaf is whole and open again" test "$rc" = 1

# two runs at once on one directory: distinct files, nothing corrupt
R=$T/r
"$DAB" solve 3x4 --proof "$R" --claim =0 --depth 3 --budget 0.001 >/dev/null 2>&1
"$DAB" solve 3x4 --proof "$R" --hash 64M >/dev/null 2>&1 &
"$DAB" solve 3x4 --proof "$R" --hash 64M >/dev/null 2>&1
wait
run solve 3x4 --proof "$R" --verify
check "concurrent runs: verified" test "$rc" = 0
check "concurrent runs: no torn or bad lines" test -z "$err"
check "concurrent runs: two record files" test "$(ls "$R"/rec-*.txt | wc -l)" = 2

# --records N ends a run after N records; --warm keeps the table across
# runs in the board's solved store: 3x4 at depth 4 in runs of 40 records,
# restarted until proved, cold and warm (one thread: node counts are exact)
run solve 3x4 --proof "$T/r5" --claim =0 --depth 4 --hash 64M --records 5 --no-store
check "--records 5: exit 0, and the run's file holds 5 records" \
  test "$rc$(cat "$T"/r5/rec-*.txt | grep -vc '^#')" = 05
restarts() {  # DIR [options]: runs of 40 records until proved; prints the runs and the records' nodes
  local dir=$1 n=0; shift
  while [ $n -lt 30 ]; do
    n=$((n + 1))
    "$DAB" solve 3x4 --proof "$dir" --claim =0 --depth 4 --hash 64M --records 40 --no-store --json "$@" \
      2>/dev/null | grep -q '"state":"proved"' && break
  done
  echo "$n $(grep -hv '^#' "$dir"/rec-*.txt | tr ' ' '\n' | sed -n 's/^nodes=//p' | awk '{s += $1} END {print s}')"
}
mkdir -p "$T/wtb"
read -r cruns cnodes < <(restarts "$T/cold")
read -r wruns wnodes < <(DAB_TB_PATH="$T/wtb" restarts "$T/warm" --warm --tb "$T/wtb")
check "cold and warm restarts both finish the proof ($cruns and $wruns runs)" \
  test "$cruns" -gt 2 -a "$cruns" -lt 30 -a "$wruns" = "$cruns"
check "--warm: the restarted runs search under 0.6x the nodes of cold ones ($wnodes against $cnodes)" \
  test "$((wnodes * 10))" -lt "$((cnodes * 6))"
check "--warm: the table's checkpoint is in the board's store under --tb" test -s "$T/wtb/3x4.dab"
run solve 3x4 --proof "$T/warm" --verify
check "--warm: the proof verifies from its records" test "$rc" = 0

# the 4x5 proof in data/proofs/4x5 (docs/proofs.md): every line reads, the
# spec is 4x5 = 0 at depth 6, nothing refutes it, and complete it proves 0
# (Barker & Korf, known-values.md)
run solve 4x5 --proof data/proofs/4x5 --verify --no-store --json
check "4x5 proof: every record line reads" test "$(json_get "$out" 'd["torn"]+d["bad"]')" = 0
check "4x5 proof: claim =0, depth 6, records in use" \
  test "$(json_get "$out" 'd["claim"]=="=+0" and d["depth"]==6 and d["used"]>0')" = True
check "4x5 proof: not refuted; exit 0 exactly when proved" \
  test "$(json_get "$out" 'd["state"]')$rc" = proved0 -o "$(json_get "$out" 'd["state"]')$rc" = open1
check "4x5 proof: when proved, the value is 0" \
  test "$(json_get "$out" 'd["state"]!="proved" or d["value"]==0')" = True

finish test_proof_sh
