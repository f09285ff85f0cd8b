#!/usr/bin/env python3
"""One-off: add sample_sites to compute profiles written before the emulator recorded them.
Each sample of an entry is matched, in the emulator's own order (rank, step, op; measured steps
only), to the compute row of the run's ops.csv with the same duration. Refuses a profile where
any sample does not match exactly one row."""
import csv, json, sys, os

def annotate(run):
    prof_path = os.path.join(run, 'compute_profile.json')
    prof = json.load(open(prof_path))
    if any('sample_sites' in e for e in prof['ops']):
        return 'has sites'
    warmup = json.load(open(os.path.join(run, 'summary.json'))).get('warmup_iterations', 1)
    rows = [r for r in csv.DictReader(open(os.path.join(run, 'ops.csv')))
            if r['type'] == 'compute' and int(r['iteration']) >= warmup]
    nxt = [0] * len(prof['ops'])
    sites = [[] for _ in prof['ops']]
    for r in rows:
        d = float(r['end_s']) - float(r['start_s'])
        cands = [i for i, e in enumerate(prof['ops'])
                 if nxt[i] < len(e['samples_s']) and abs(e['samples_s'][nxt[i]] - d) <= 2.5e-9]
        if len(cands) != 1:
            return f'row {r["rank"]},{r["iteration"]},{r["op"]} matches {len(cands)} entries'
        i = cands[0]
        sites[i].append([int(r['rank']), int(r['iteration']), int(r['op'])])
        nxt[i] += 1
    for i, e in enumerate(prof['ops']):
        if nxt[i] != len(e['samples_s']):
            return f'entry {i}: {nxt[i]} of {len(e["samples_s"])} samples matched'
        e['sample_sites'] = sites[i]
    tmp = prof_path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(json.dumps(prof, indent=1) + '\n')
    os.replace(tmp, prof_path)
    return 'ok'

if len(sys.argv) < 2:
    print('usage: annotate_sample_sites.py RUN_DIR... (runs of geotrain emulate: compute_profile.json, '
          'ops.csv, summary.json)', file=sys.stderr)
    sys.exit(2)
bad = 0
for run in sys.argv[1:]:
    try:
        res = annotate(run)
    except (OSError, ValueError, KeyError) as e:
        res = f'cannot read: {e}'

    if res not in ('ok', 'has sites'):
        bad += 1
    print(run, res)
sys.exit(2 if bad else 0)
