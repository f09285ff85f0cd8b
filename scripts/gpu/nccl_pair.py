"""Two processes, ONE GPU: NCCL all-reduce and send/recv between them (scripts/gpu_check.sh).

    python3 scripts/gpu/nccl_pair.py [--backend nccl|gloo] [--timeout S]

Starts two ranks of torch.distributed on 127.0.0.1 (a TCPStore on a free port) with the
environment geotrain's emulator gives ranks that share a GPU (emu/worker/nccl_environment.cpp):
a distinct NCCL_HOSTID per process (NCCL would otherwise refuse two ranks on one GPU: "Duplicate
GPU detected"), NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 (the ranks must talk through sockets,
as separate hosts do), NCCL_SOCKET_IFNAME=lo, NCCL_IB_DISABLE=1, NCCL_NVLS_ENABLE=0. Each rank:
all-reduces a small and a 64 MiB tensor (sums checked), sends a tensor to the other and checks
what it received, in both directions. Prints one JSON line (ok, per-rank checks, the 64 MiB
all-reduce time); exit 0 when both ranks passed. --backend gloo --device cpu runs the same on
CPU (a rehearsal without a GPU).
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

ENV = {
    "NCCL_P2P_DISABLE": "1",
    "NCCL_SHM_DISABLE": "1",
    "NCCL_SOCKET_IFNAME": "lo",
    "NCCL_IB_DISABLE": "1",
    "NCCL_NVLS_ENABLE": "0",
    "NCCL_DEBUG": "WARN",
}
BIG = 16 * 1024 * 1024  # float32 elements: 64 MiB


def rank_main(rank, world, port, backend, device_kind):
    import datetime
    import torch
    import torch.distributed as dist

    out = {"rank": rank, "checks": {}}
    if device_kind == "cuda":
        torch.cuda.set_device(0)
        dev = torch.device("cuda", 0)
    else:
        dev = torch.device("cpu")
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=60))
    expected = float(sum(range(1, world + 1)))

    small = torch.full((1024,), float(rank + 1), device=dev)
    dist.all_reduce(small)
    out["checks"]["allreduce_small"] = bool(torch.all(small == expected).item())

    big = torch.full((BIG,), float(rank + 1), device=dev)
    dist.all_reduce(big)  # warm-up (connections, buffers)
    big.fill_(float(rank + 1))
    if device_kind == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    dist.all_reduce(big)
    if device_kind == "cuda":
        torch.cuda.synchronize()
    out["allreduce_64MiB_s"] = time.perf_counter() - t0
    out["checks"]["allreduce_64MiB"] = bool(torch.all(big == expected).item())

    peer = 1 - rank
    payload = torch.arange(1 << 20, dtype=torch.float32, device=dev) * (rank + 1)
    received = torch.empty(1 << 20, dtype=torch.float32, device=dev)
    want = torch.arange(1 << 20, dtype=torch.float32, device=dev) * (peer + 1)
    for sender in (0, 1):  # 0 -> 1, then 1 -> 0: both directions
        if rank == sender:
            dist.send(payload, peer)
        else:
            dist.recv(received, peer)
            out["checks"][f"recv_from_{peer}"] = bool(torch.equal(received, want))
    dist.barrier()
    dist.destroy_process_group()
    out["ok"] = all(out["checks"].values())
    print(json.dumps(out), flush=True)
    return 0 if out["ok"] else 1


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])
    ap.add_argument("--device", default=None, choices=["cuda", "cpu"])
    ap.add_argument("--timeout", type=float, default=150)
    ap.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    device_kind = a.device or ("cuda" if a.backend == "nccl" else "cpu")
    if a.rank is not None:
        return rank_main(a.rank, 2, a.port, a.backend, device_kind)

    port = free_port()
    procs = []
    t0 = time.perf_counter()
    for rank in range(2):
        env = dict(os.environ, **ENV, NCCL_HOSTID=f"gpu-check-rank-{rank}")
        procs.append(subprocess.Popen(
            [sys.executable, __file__, "--backend", a.backend, "--device", device_kind,
             "--rank", str(rank), "--port", str(port)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    ranks, errors = [], []
    for rank, p in enumerate(procs):
        try:
            so, se = p.communicate(timeout=max(1.0, a.timeout - (time.perf_counter() - t0)))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            so, se = p.communicate()
            errors.append(f"rank {rank}: no result within {a.timeout:.0f} s (killed)")
        line = next((x for x in reversed(so.splitlines()) if x.startswith("{")), None)
        if line:
            ranks.append(json.loads(line))
        else:
            tail = " | ".join(se.strip().splitlines()[-5:])
            errors.append(f"rank {rank}: exit {p.returncode}: {tail}")
    ok = not errors and len(ranks) == 2 and all(r.get("ok") for r in ranks)
    result = {"ok": ok, "backend": a.backend, "device": device_kind,
              "environment": dict(ENV, NCCL_HOSTID="gpu-check-rank-<rank>"),
              "ranks": ranks, "errors": errors,
              "wall_s": round(time.perf_counter() - t0, 3)}
    times = [r["allreduce_64MiB_s"] for r in ranks if "allreduce_64MiB_s" in r]
    if times:
        result["allreduce_64MiB_s"] = max(times)
    print(json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
