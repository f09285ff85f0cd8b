"""What python3's PyTorch offers, as key=value lines (scripts/gpu_check.sh reads them with sed).

torch=<version>, cuda_build=<torch.version.cuda or empty>, cuda_available=0|1, devices=<n>,
nccl=<version or empty>, gloo=0|1, cmake_prefix=<torch.utils.cmake_prefix_path>,
gpu<i>=<name>|<total bytes>|<compute capability>. Exit 1 when torch cannot be imported.
"""
import sys

try:
    import torch
except Exception as e:  # noqa: BLE001 - any import failure means "no usable torch"
    print(f"error={type(e).__name__}: {e}".replace("\n", " "))
    sys.exit(1)

print(f"torch={torch.__version__}")
print(f"python={sys.version.split()[0]}")
print(f"cmake_prefix={torch.utils.cmake_prefix_path}")
print(f"cuda_build={torch.version.cuda or ''}")
available = torch.cuda.is_available()
print(f"cuda_available={int(available)}")
print(f"devices={torch.cuda.device_count() if available else 0}")
nccl = ""
try:
    v = torch.cuda.nccl.version()
    nccl = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
except Exception:  # noqa: BLE001 - no NCCL in this build
    pass
print(f"nccl={nccl}")
try:
    import torch.distributed as dist
    print(f"gloo={int(dist.is_available() and dist.is_gloo_available())}")
except Exception:  # noqa: BLE001
    print("gloo=0")
if available:
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        print(f"gpu{i}={p.name}|{p.total_memory}|{p.major}.{p.minor}")
