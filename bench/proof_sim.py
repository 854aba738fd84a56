#!/usr/bin/python3
"""proof_sim.py: replays a divisible proof's recorded subproblem costs on N
MPI workers (`dab solve --proof DIR --mpi`) and reports makespan,
utilisation and rank 0's load, to size a cluster run from measurements.

Usage: bench/proof_sim.py [DIR] [--rank0-ms MS] [--remaining-cpu-h H] [--seed S]

Model: every record and every "# open" note (a search given up) is one
task of its recorded CPU seconds (seconds x threads), one worker thread
each, handed out in the order recorded.  Rank 0 handles one answer at a
time and spends MS milliseconds on each (evaluating the tree for the next
claim and appending the line: measured ~25 ms on the 4x5 tree of 5,536
open leaves); a worker waits for rank 0 before it gets its next task.
The AND/OR structure is ignored (a refutation that prunes siblings only
shortens the real run), so the figures bound the real run from above on
work and from below on rank 0's load per task.  --remaining-cpu-h also
replays a projected rest of the proof: tasks drawn (with replacement,
seeded) from the recorded costs until they sum to H CPU-hours.
"""
import glob, heapq, os, random, re, sys

def load(dirname):
    tasks = []
    for path in sorted(glob.glob(os.path.join(dirname, "rec-*.txt"))):
        for line in open(path):
            m_s = re.search(r"\bseconds=([0-9.]+)", line)
            if not m_s or (line.startswith("#") and not line.startswith("# open")):
                continue
            m_t = re.search(r"\bthreads=(\d+)", line)
            m_d = re.search(r"\bdate=(\S+)", line)
            cpu = float(m_s.group(1)) * (int(m_t.group(1)) if m_t else 1)
            tasks.append((m_d.group(1) if m_d else "", cpu))
    tasks.sort(key=lambda t: t[0])
    return [c for _, c in tasks]

def simulate(costs, workers, rank0_s):
    """Workers take tasks in order; answers reach rank 0 in the order they
    finish, and a worker's next task starts when rank 0 has handled its
    answer.  Returns (makespan s, utilisation, rank 0 busy share)."""
    running = []  # (finish time, worker)
    nxt = 0
    for w in range(min(workers, len(costs))):
        running.append((costs[nxt], w))
        nxt += 1
    heapq.heapify(running)
    rank0_free = rank0_busy = end = 0.0
    while running:
        t, w = heapq.heappop(running)
        start = max(t, rank0_free)
        rank0_free = start + rank0_s
        rank0_busy += rank0_s
        end = max(end, rank0_free)
        if nxt < len(costs):
            heapq.heappush(running, (rank0_free + costs[nxt], w))
            nxt += 1
    total = sum(costs)
    return end, total / (workers * end) if end > 0 else 0.0, rank0_busy / end if end > 0 else 0.0

def report(title, costs, rank0_s, counts):
    total = sum(costs)
    print(f"\n{title}: {len(costs):,} tasks, {total / 3600:.1f} CPU-hours, largest {max(costs) / 3600:.2f} h, "
          f"rank 0 at {rank0_s * 1e3:.0f} ms an answer")
    print("| workers | makespan | utilisation | rank 0 busy |")
    print("|---:|---:|---:|---:|")
    for n in counts:
        span, util, r0 = simulate(costs, n, rank0_s)
        print(f"| {n:,} | {span / 3600:.2f} h | {util:.2f} | {r0:.2f} |")

def main():
    args = sys.argv[1:]
    dirname, rank0_ms, remaining, seed = "data/proofs/4x5", 25.0, 0.0, 1
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--rank0-ms": rank0_ms = float(args[i + 1]); i += 2
        elif a == "--remaining-cpu-h": remaining = float(args[i + 1]); i += 2
        elif a == "--seed": seed = int(args[i + 1]); i += 2
        elif a.startswith("-"): sys.exit(f"proof_sim.py: unknown option '{a}'")
        else: dirname = a; i += 1
    costs = load(dirname)
    if not costs:
        sys.exit(f"proof_sim.py: no records in {dirname}")
    counts = [1, 16, 64, 256, 1024]
    report(f"recorded ({dirname})", costs, rank0_ms / 1e3, counts)
    if remaining > 0:
        rng = random.Random(seed)
        rest, s = [], 0.0
        while s < remaining * 3600:
            c = rng.choice(costs)
            rest.append(c)
            s += c
        report(f"projected rest ({remaining:g} CPU-hours drawn from the recorded costs, seed {seed})", rest,
               rank0_ms / 1e3, counts)

if __name__ == "__main__":
    main()
