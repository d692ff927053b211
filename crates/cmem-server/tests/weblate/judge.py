"""Counts what a run of real_client.py shows: exact sources at 99 or more with their
stored translation, and suggestions whose placeholders, directives or tags differ from
the string's (the comparison the replay test makes). Usage: judge.py RESULTS.jsonl [-v]
"""
import json, re, sys, collections
TOK = re.compile(r"%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|j|z|t|q|L|I64|I32|I)?[diouxXeEfFgGaAcspnm]|%<PRI[a-zA-Z0-9]+>|%\([a-z_0-9]+\)[a-z]|\{[a-z_0-9]*\}|</?[a-zA-Z]+[^<>]*>")
def toks(s): return collections.Counter(TOK.findall(s))
stats = collections.Counter()
bad = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    sug = [s for s in r['suggestions'] if 'error' not in s]
    targets = r.get('targets', r.get('exact_targets', []))
    if targets:
        stats['exact'] += 1
        hit = [s for s in sug if s['source'] == r['source'] and s['quality'] >= 99]
        if hit: stats['exact_shown_99'] += 1
        else: bad.append(('exact not at 99', r['kind'], r['source'][:90], [(s['quality'], s['source'][:60]) for s in sug[:2]]))
        if hit and hit[0]['target'] in targets: stats['exact_target_right'] += 1
        elif hit: bad.append(('exact target differs', r['kind'], hit[0]['target'][:120], targets[0][:120]))
    src = toks(r['source'])
    for s in sug:
        stats['suggestions'] += 1
        if s['failed']:
            stats['weblate_check_failed'] += 1; bad.append(('weblate check', r['kind'], s['failed'], s['target'][:100]))
        t = toks(s['target'])
        if t != src:
            stats['codes_differ'] += 1
            bad.append(('codes differ', r['kind'], r['source'][:80], s['target'][:100], s['quality']))
print(dict(stats))
if len(sys.argv) > 2:
    for b in bad: print(b)
