"""Times Weblate's captured requests against a tmserver: every request path of
testdata/weblate/client-requests.jsonl, three rounds, one client; prints the p50, p95 and
p99 in milliseconds. Run the server with `--answer-cache 0` so every request is looked up.
Usage: replay_time.py TMSERVER_URL [REQUESTS.jsonl]
"""
import json
import sys
import time
import urllib.request


def main():
    base = sys.argv[1].rstrip("/")
    fixture = sys.argv[2] if len(sys.argv) > 2 else "testdata/weblate/client-requests.jsonl"
    paths = [p for line in open(fixture, encoding="utf-8") for p in json.loads(line)["requests"]]
    times = []
    for _ in range(3):
        for path in paths:
            started = time.perf_counter()
            urllib.request.urlopen(base + path).read()
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(len(times) * q))]
    print(f"{len(times)} requests: p50 {pick(0.5):.2f} ms, p95 {pick(0.95):.2f} ms, p99 {pick(0.99):.2f} ms")


if __name__ == "__main__":
    main()
