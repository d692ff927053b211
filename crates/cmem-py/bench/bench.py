"""Benchmark of the Python package: ``Memory.lookup_batch`` against rapidfuzz's
exhaustive ``process.extract`` over the same memory and queries, against the same batch
driven from Rust, and four Python threads sharing one ``Memory`` against one.

It needs the benchmark corpus, which is not in the repository: ``en-de.jsonl.gz``,
``queries_sample.jsonl`` and ``queries_versioned.jsonl`` in the directory given by
``--corpus`` (a real en-de software-localization memory; see the corpus's README). It
also needs ``cmem`` installed from a release build and ``rapidfuzz``, and runs
``cargo run --release -p cmem-py --example rust_batch`` for the Rust side.

    pip install rapidfuzz && pip install ./crates/cmem-py
    python crates/cmem-py/bench/bench.py --corpus ../shared/corpus/bench --sources 100000

The memory is the corpus's first ``--sources`` lines with distinct sources (as
``cmem-bench --entries`` takes them); the queries are both query sets (8,189 real
queries). Every tool looks up with threshold 70 and limit 10. Each timed run is repeated
``--rounds`` times, the runs of the two sides of a comparison taking turns, and the
fastest round of each counts (the machine may be shared); the processor time of the
thread runs shows whether the threads did run at once. rapidfuzz scores every
source of the memory with ``fuzz.ratio`` (normalized Indel similarity, its closest to
cmem's character Levenshtein) on one thread, as ``process.extract`` does; it runs on
every ``--rapidfuzz-every``-th query only, since each takes tens of milliseconds.
Prints a table and, with ``--json``, the figures as JSON.
"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import cmem


def load_memory(path, limit):
    """The first ``limit`` records with distinct sources."""
    seen, records = set(), []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            src, trg = rec.get("source"), rec.get("target")
            if not src or not trg or src in seen:
                continue
            seen.add(src)
            records.append({"source": src, "target": trg})
            if len(records) == limit:
                break
    return records


def load_queries(corpus):
    queries = []
    for name in ("queries_sample.jsonl", "queries_versioned.jsonl"):
        with open(corpus / name, encoding="utf-8") as f:
            queries += [json.loads(line)["query"] for line in f if line.strip()]
    return queries


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def timed_each(tm, queries):
    """Each query looked up alone, one after the other: its latency in seconds."""
    times = []
    for q in queries:
        t = time.perf_counter()
        tm.lookup(q, "en", "de", threshold=0.7, limit=10)
        times.append(time.perf_counter() - t)
    return times


def threaded(tm, queries, n):
    """``n`` threads share ``tm``, each looking up its share one query at a time: the
    wall time and the processor time of the process meanwhile."""
    shares = [queries[i::n] for i in range(n)]
    threads = [threading.Thread(target=timed_each, args=(tm, share)) for share in shares]
    t, cpu = time.perf_counter(), time.process_time()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.perf_counter() - t, time.process_time() - cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="the benchmark corpus directory")
    ap.add_argument("--sources", type=int, default=100_000)
    ap.add_argument("--rapidfuzz-every", type=int, default=16)
    ap.add_argument("--threads", type=int, default=0, help="lookup_batch's threads (0: one per processor)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from rapidfuzz import fuzz, process

    records = load_memory(args.corpus / "en-de.jsonl.gz", args.sources)
    queries = load_queries(args.corpus)
    threads = args.threads or os.cpu_count() or 1
    out = {"sources": len(records), "queries": len(queries), "threads": threads}

    workdir = tempfile.TemporaryDirectory()
    mem, qs = Path(workdir.name) / "memory.jsonl", Path(workdir.name) / "queries.jsonl"
    mem.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    qs.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries), encoding="utf-8")
    root = Path(__file__).resolve().parents[3]
    rust_cmd = ["cargo", "run", "-q", "--release", "-p", "cmem-py", "--example", "rust_batch", "--",
                str(mem), str(qs), str(threads), "1"]
    # Built before any clock runs.
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "cmem-py", "--example", "rust_batch"],
                   cwd=root, check=True)

    with cmem.Memory(":memory:", create=True) as tm:
        t = time.perf_counter()
        tm.import_records(records, source="en", target="de")
        tm.lookup("warm the index", "en", "de")
        out["import_s"] = time.perf_counter() - t

        # The batch, Python's call and the same from Rust in turns: wall time of the call.
        batch, batch_cpu, batch_one, rust_rounds, rust_cpu = [], [], [], [], []
        for _ in range(args.rounds):
            t, cpu = time.perf_counter(), time.process_time()
            answers = tm.lookup_batch(queries, "en", "de", threshold=0.7, limit=10, threads=args.threads)
            batch.append(time.perf_counter() - t)
            batch_cpu.append(time.process_time() - cpu)
            # The same batch on one engine thread: how much the machine lets threads gain.
            t = time.perf_counter()
            tm.lookup_batch(queries, "en", "de", threshold=0.7, limit=10, threads=1)
            batch_one.append(time.perf_counter() - t)
            run = subprocess.run(rust_cmd, cwd=root, check=True, capture_output=True, text=True)
            rust = json.loads(run.stdout)
            rust_rounds += rust["seconds"]
            rust_cpu += rust["cpu_seconds"]
        out["batch_rounds_s"], out["rust_batch_rounds_s"] = batch, rust_rounds
        out["batch_s"], out["rust_batch_s"] = min(batch), min(rust_rounds)
        out["batch_one_thread_rounds_s"] = batch_one
        out["batch_one_thread_s"] = min(batch_one)
        out["batch_per_query_us"] = out["batch_s"] / len(queries) * 1e6
        out["python_over_rust"] = out["batch_s"] / out["rust_batch_s"]
        out["batch_cpu_rounds_s"], out["rust_batch_cpu_rounds_s"] = batch_cpu, rust_cpu
        out["batch_cpu_s"], out["rust_batch_cpu_s"] = min(batch_cpu), min(rust_cpu)
        out["python_over_rust_cpu"] = out["batch_cpu_s"] / out["rust_batch_cpu_s"]
        py_top = [a[0].source if a else None for a in answers]
        out["top_agree"] = sum(p == r for p, r in zip(py_top, rust["top"])) / len(queries)

        # One lookup at a time on one thread: the latency of each.
        each = timed_each(tm, queries)
        out["lookup_p50_us"] = statistics.median(each) * 1e6
        out["lookup_p99_us"] = percentile(each, 0.99) * 1e6

        # rapidfuzz: every source scored for each query, best ten at 70 or more. cmem looks
        # the same sampled queries up, the two taking turns by blocks of 32 queries, so
        # both meet the same load yet neither runs with caches the other just emptied
        # (one query each in turn would: DESIGN.md §4.1).
        choices = [r["source"] for r in records]
        sample = queries[:: args.rapidfuzz_every]
        rf_times, cm_times = [], []
        for start in range(0, len(sample), 32):
            block = sample[start : start + 32]
            cm_times += timed_each(tm, block)
            for q in block:
                t = time.perf_counter()
                process.extract(q, choices, scorer=fuzz.ratio, limit=10, score_cutoff=70)
                rf_times.append(time.perf_counter() - t)
        out["rapidfuzz_queries"] = len(sample)
        out["rapidfuzz_p50_us"] = statistics.median(rf_times) * 1e6
        out["rapidfuzz_mean_us"] = statistics.mean(rf_times) * 1e6
        out["sample_lookup_p50_us"] = statistics.median(cm_times) * 1e6
        out["speedup_p50"] = out["rapidfuzz_p50_us"] / out["sample_lookup_p50_us"]
        out["speedup_batch"] = out["rapidfuzz_mean_us"] / out["batch_per_query_us"]

        # Four threads sharing the memory against one, each lookup one call; in turns.
        ones, fours = [], []
        for _ in range(args.rounds):
            ones.append(threaded(tm, queries, 1))
            fours.append(threaded(tm, queries, 4))
        one, four = min(ones), min(fours)
        out["one_thread_s"], out["one_thread_cpu_s"] = one
        out["four_threads_s"], out["four_threads_cpu_s"] = four
        out["one_thread_rounds_s"] = [w for w, _ in ones]
        out["four_threads_rounds_s"] = [w for w, _ in fours]
        out["four_over_one"] = four[0] / one[0]
    workdir.cleanup()

    if args.json:
        print(json.dumps(out, indent=2))
    print(f"memory {out['sources']:,} sources, {out['queries']:,} queries, threshold 70, limit 10", file=sys.stderr)
    rows = [
        ("import + index", f"{out['import_s']:.1f} s"),
        (f"lookup_batch ({threads} threads)", f"{out['batch_s']:.2f} s, {out['batch_per_query_us']:.0f} µs a query"),
        ("  processor time, Python / Rust", f"{out['batch_cpu_s']:.2f} s / {out['rust_batch_cpu_s']:.2f} s = {out['python_over_rust_cpu']:.3f}"),
        ("lookup_batch (1 thread)", f"{out['batch_one_thread_s']:.2f} s"),
        ("Rust lookup_many (same)", f"{out['rust_batch_s']:.2f} s; Python/Rust {out['python_over_rust']:.3f}"),
        ("lookup, one at a time", f"p50 {out['lookup_p50_us']:.0f} µs, p99 {out['lookup_p99_us']:.0f} µs"),
        (f"rapidfuzz extract ({len(sample)} queries)", f"p50 {out['rapidfuzz_p50_us']:.0f} µs, mean {out['rapidfuzz_mean_us']:.0f} µs"),
        ("cmem lookup, same sample", f"p50 {out['sample_lookup_p50_us']:.0f} µs"),
        ("speed-up", f"{out['speedup_p50']:.0f}× at the median, {out['speedup_batch']:.0f}× batch per query against the mean"),
        ("4 threads / 1 thread", f"{out['four_threads_s']:.2f} s / {out['one_thread_s']:.2f} s = {out['four_over_one']:.2f}"),
        ("  their processor time", f"{out['four_threads_cpu_s']:.2f} s / {out['one_thread_cpu_s']:.2f} s"),
        ("best match, Python = Rust", f"{out['top_agree'] * 100:.2f} %"),
    ]
    for k, v in rows:
        print(f"{k:<34} {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
