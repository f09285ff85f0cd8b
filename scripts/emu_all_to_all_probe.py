#!/usr/bin/env python3
"""All-to-all probe of a running emulated cluster (`geotrain emu up`): can this host carry it?

Every rank exchanges one message of --bytes with every other rank, `rounds` times, the way Gloo
moves an unbound buffer: one TCP connection per pair, the receiver's one-byte "ready" notice
first, the sender's data once the notice has arrived. Each round starts at a common time plus a
seeded offset of up to --spread seconds per rank (as ranks leave their compute at different
times). For every receiver and peer the probe compares the time the data arrived with the
rendezvous model of the configured link,

    max(start_peer, start_receiver + delay) + delay + bytes / (rate x 1448/1514),

and reports the excess: about zero while the host keeps up, growing when the emulation itself
(TCP stacks, shaping, delayers on the host's cores) cannot carry the burst. Delays come from the
delayers' own command lines and rates from the HTB classes, so the model is the cluster's.

    sudo scripts/emu_all_to_all_probe.py --cluster NAME --bytes 55280 --rounds 6 --out probe.json

Writes --out (JSON: per round, per receiver and peer, the arrival and the model); prints per
round the mean and max excess per receiver. Exit 2 on bad arguments or a cluster it cannot read.
Runs as root (ip netns exec). Written for diagnosis (docs/emulated-network.md, "Host capacity").
"""
import argparse
import json
import os
import random
import re
import selectors
import socket
import struct
import subprocess
import sys
import time

PORT = 7391
STATE_DIR = "/run/geotrain"


def fail(msg):
    print(f"emu_all_to_all_probe: {msg}", file=sys.stderr)
    sys.exit(2)


def address(rank):  # the emulator's addressing: 10.200.0.0 + rank + 1
    return f"10.200.0.{rank + 1}" if rank < 254 else fail("ranks above 253 are not supported")


def run_rank(a):
    """One rank: listen, connect to higher ranks, then `rounds` rendezvous exchanges."""
    me, world, size = a.rank, a.world, a.bytes
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address(me), PORT))
    listener.listen(world)
    time.sleep(1.0)  # every rank listens before anyone connects
    peers = {}
    for p in range(me + 1, world):
        s = socket.create_connection((address(p), PORT), timeout=30)
        s.sendall(struct.pack("i", me))
        peers[p] = s
    while len(peers) < world - 1:
        c, _ = listener.accept()
        peers[struct.unpack("i", c.recv(4))[0]] = c
    for s in peers.values():
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
    payload = memoryview(b"x" * size)
    rng = random.Random(a.seed)
    rounds = []
    for k in range(a.rounds):
        offsets = [rng.uniform(0, a.spread) for _ in range(world)]
        time.sleep(max(0.0, a.t0 + a.gap * k + offsets[me] - time.time()))
        start = time.time()
        sel = selectors.DefaultSelector()
        need = {p: 1 + size for p in peers}  # the peer's notice, then its data
        outgoing, arrived = {}, {}
        for p, s in peers.items():
            s.send(b"N")
            sel.register(s, selectors.EVENT_READ, p)
        sending = len(peers)
        while need or sending:
            for key, ev in sel.select():
                p, s = key.data, key.fileobj
                if ev & selectors.EVENT_WRITE and p in outgoing:
                    outgoing[p] = outgoing[p][s.send(outgoing[p]):]
                    if not outgoing[p]:
                        del outgoing[p]
                        sending -= 1
                elif ev & selectors.EVENT_READ and p in need:
                    got = s.recv(min(1 << 20, need[p]))
                    if not got:
                        fail(f"rank {me}: peer {p} closed the connection")
                    if need[p] == 1 + size:  # first byte: the peer is ready for our data
                        outgoing[p] = payload
                    need[p] -= len(got)
                    if need[p] == 0:
                        arrived[p] = time.time()
                        del need[p]
                events = (selectors.EVENT_READ if p in need else 0) | (selectors.EVENT_WRITE if p in outgoing else 0)
                if events:
                    sel.modify(s, events, p)
                else:
                    sel.unregister(s)
        rounds.append({"start": start, "arrived": {str(p): t for p, t in arrived.items()}})
    json.dump(rounds, sys.stdout)


def cluster_links(cluster):
    """(delay_s, rate_Bps) per ordered pair (src, dst), read from the running cluster."""
    path = os.path.join(STATE_DIR, f"{cluster}.json")
    try:
        state = json.load(open(path))
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read the cluster's state ({e}); is `geotrain emu up` running?")
    if state.get("backend") != "nfqueue":
        fail(f"{path}: backend {state.get('backend')!r}; the probe reads the nfqueue delayers' delays")
    world = int(state["ranks"])
    delay = {}
    for d in state["delayers"]:
        dst = int(d["netns"].rsplit("-", 1)[1])
        args = open(f"/proc/{d['pid']}/cmdline").read().split("\0")
        for flag, value in zip(args, args[1:]):
            if flag == "--queue":
                queue, ns = value.split(":")
                if int(queue) < 32768:  # receivers' queues are numbered by source rank
                    delay[(int(queue), dst)] = int(ns) / 1e9
    rate = {}
    for src in range(world):
        out = subprocess.run(["tc", "-n", f"gt-{cluster}-{src}", "class", "show", "dev", "eth0"],
                             capture_output=True, text=True, check=True).stdout
        for m in re.finditer(r"class htb 1:([0-9a-f]+) .*?rate (\d+(?:\.\d+)?)([KMG]?)bit", out):
            dst = int(m.group(1), 16) - 1
            scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(3)]
            rate[(src, dst)] = float(m.group(2)) * scale / 8 * 1448 / 1514
    missing = [(s, d) for s in range(world) for d in range(world) if s != d and ((s, d) not in delay or (s, d) not in rate)]
    if missing:
        fail(f"cluster {cluster}: no delay or rate for pairs {missing[:4]}")
    return world, delay, rate


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--bytes", type=int, default=55280)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--spread", type=float, default=0.15, help="per-rank start offsets, seconds")
    ap.add_argument("--gap", type=float, default=2.0, help="seconds between round starts")
    ap.add_argument("--ranks", type=int, default=0, help="use ranks 0..N-1 only (default all)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out")
    ap.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--world", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.bytes < 1 or a.rounds < 1 or a.spread < 0 or a.gap <= 0:
        fail("--bytes and --rounds must be >= 1, --spread >= 0, --gap > 0")
    if a.rank is not None:
        return run_rank(a)
    if not a.out:
        fail("--out is required")
    world, delay, rate = cluster_links(a.cluster)
    n = a.ranks or world
    if not 2 <= n <= world:
        fail(f"--ranks {a.ranks}: the cluster has {world} ranks")
    t0 = time.time() + 5 + 0.3 * n
    procs = [subprocess.Popen(["ip", "netns", "exec", f"gt-{a.cluster}-{r}", sys.executable, __file__,
                               "--cluster", a.cluster, "--rank", str(r), "--world", str(n),
                               "--bytes", str(a.bytes), "--rounds", str(a.rounds), "--spread", str(a.spread),
                               "--gap", str(a.gap), "--seed", str(a.seed), "--t0", str(t0)],
                              stdout=subprocess.PIPE, text=True) for r in range(n)]
    results = []
    for r, p in enumerate(procs):
        out, _ = p.communicate(timeout=120 + a.rounds * a.gap)
        if p.returncode != 0:
            fail(f"rank {r} failed (exit {p.returncode})")
        results.append(json.loads(out))
    report = {"cluster": a.cluster, "ranks": n, "bytes": a.bytes, "spread_s": a.spread, "rounds": []}
    print("round  excess per receiver: mean  max (s)")
    for k in range(a.rounds):
        start = [results[r][k]["start"] for r in range(n)]
        pairs, per_receiver = [], []
        for r in range(n):
            worst = 0.0
            for p in range(n):
                if p == r:
                    continue
                d, bw = delay[(p, r)], rate[(p, r)]
                # Our notice reaches p after the delay r -> p; p's data comes back over p -> r.
                model = max(start[p], start[r] + delay[(r, p)]) + d + a.bytes / bw
                got = results[r][k]["arrived"][str(p)]
                pairs.append({"receiver": r, "peer": p, "arrived_s": got - start[r], "model_s": model - start[r]})
                worst = max(worst, got - model)
            per_receiver.append(worst)
        report["rounds"].append({"pairs": pairs, "receiver_excess_s": per_receiver})
        print(f"{k:5d}  {sum(per_receiver) / n:7.3f}  {max(per_receiver):6.3f}")
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=1)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
