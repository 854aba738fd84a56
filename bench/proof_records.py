#!/usr/bin/env python3
"""proof_records.py: where a divisible proof's recorded CPU went, from its
records alone (docs/proofs.md, "Where the proof's CPU goes").

    bench/proof_records.py [DIR]        (default data/proofs/4x5)

Reads every DIR/rec-*.txt and prints, in CPU-hours (seconds x threads):
  - records: all, proved, refuted, and trivial ones (under 0.1 s: decided
    by the table another search left);
  - given-up searches (the `# open` notes: leaf limits and direct attempts);
  - repeats: a (position, claim) recorded more than once, the CPU of all
    but the cheapest copy;
  - cold starts: each records file is one run from an empty table; its first
    five non-trivial records against the same run's later median;
  - the dearest records' share.
The proof's own accounting (which records the active tree uses, what is
open) is `dab solve ... --verify --json`.
"""
import glob
import os
import statistics
import sys


def parse_fields(tokens):
    fields = {}
    for tok in tokens:
        if "=" in tok:
            key, _, val = tok.partition("=")
            fields[key] = val
    return fields


def cpu_of(fields):
    return float(fields.get("seconds", 0)) * int(fields.get("threads", 1))


def read_dir(path):
    runs = []
    for name in sorted(glob.glob(os.path.join(path, "rec-*.txt"))):
        records, notes = [], []
        with open(name, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("# open"):
                    words = line.split()
                    direct = words[2] == "direct"
                    pos, claim = (words[3], words[4]) if direct else (words[2], words[3])
                    notes.append(dict(pos=pos, claim=claim, direct=direct,
                                      cpu=cpu_of(parse_fields(words))))
                elif line and not line.startswith("#"):
                    words = line.split()
                    if len(words) < 4:
                        continue
                    records.append(dict(pos=words[0], claim=words[1], result=words[2],
                                        cpu=cpu_of(parse_fields(words[4:]))))
        runs.append(dict(name=os.path.basename(name), records=records, notes=notes))
    return runs


def hours(seconds):
    return seconds / 3600.0


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "data/proofs/4x5"
    runs = read_dir(path)
    records = [r for run in runs for r in run["records"]]
    notes = [n for run in runs for n in run["notes"]]
    if not records:
        sys.exit(f"proof_records: no records in {path}")
    total = sum(r["cpu"] for r in records) + sum(n["cpu"] for n in notes)
    rows = []

    def row(what, count, cpu):
        rows.append((what, count, hours(cpu), 100.0 * cpu / total))

    proved = [r for r in records if r["result"] == "proved"]
    refuted = [r for r in records if r["result"] == "refuted"]
    trivial = [r for r in records if r["cpu"] < 0.1]
    row("records, proved", len(proved), sum(r["cpu"] for r in proved))
    row("records, refuted", len(refuted), sum(r["cpu"] for r in refuted))
    row("  of all records: trivial (< 0.1 s)", len(trivial), sum(r["cpu"] for r in trivial))
    leaf_notes = [n for n in notes if not n["direct"]]
    direct_notes = [n for n in notes if n["direct"]]
    row("given up: leaf searches (--leaf-limit)", len(leaf_notes), sum(n["cpu"] for n in leaf_notes))
    row("given up: direct searches (--direct)", len(direct_notes), sum(n["cpu"] for n in direct_notes))

    by_claim = {}
    for r in records:
        by_claim.setdefault((r["pos"], r["claim"]), []).append(r["cpu"])
    repeats = [sorted(c) for c in by_claim.values() if len(c) > 1]
    row("  repeats: a claim recorded again", sum(len(c) - 1 for c in repeats),
        sum(sum(c[1:]) for c in repeats))

    # Cold starts: the first non-trivial records of each run against the
    # median of that run's later ones.
    first_cpu, later_median, cold_runs = 0.0, [], 0
    for run in runs:
        real = [r["cpu"] for r in run["records"] if r["cpu"] >= 0.1]
        if len(real) < 10:
            continue
        cold_runs += 1
        first_cpu += sum(real[:5])
        later_median.append((statistics.median(real[:5]), statistics.median(real[5:])))
    print(f"{path}: {len(runs)} runs (each from an empty table), "
          f"{len(records)} records, {hours(total):.2f} CPU-hours with the given-up searches")
    print(f"{'what':<42} {'count':>6} {'CPU-h':>8} {'share':>6}")
    for what, count, h, share in rows:
        print(f"{what:<42} {count:>6} {h:>8.2f} {share:>5.1f}%")
    if later_median:
        ratios = sorted(a / b for a, b in later_median if b > 0)
        print(f"cold starts: {cold_runs} runs with 10+ records; their first five records "
              f"{hours(first_cpu):.2f} CPU-h; first-five median / later median per run: "
              f"median {statistics.median(ratios):.2f}x (range {ratios[0]:.2f}-{ratios[-1]:.2f}x)")
    cpus = sorted((r["cpu"] for r in records), reverse=True)
    for k in (10, 50, 100):
        if len(cpus) >= k:
            print(f"dearest {k} records: {hours(sum(cpus[:k])):.2f} CPU-h "
                  f"({100.0 * sum(cpus[:k]) / total:.1f}% of all)")


if __name__ == "__main__":
    main()
