"""Questions with a pasted artefact, generated: a log, a command's output or a config with a line or two of prose.

People paste what they see: an nccl-tests table, `nvidia-smi topo -m`, a dmesg Xid line, a CUDA OOM traceback, an
NCCL watchdog timeout, `nvidia-smi` rows, a launch command, a DeepSpeed config, step times. Each template draws its
GPUs, counts, sizes, addresses and numbers at random, in Chinese or English, so a benchmark's questions are new to
the process that answers them. `pasted(r, lang)` returns one question; the same Random state gives the same text.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from evaluators.fuzz_vocab import BIG_GPUS, MODELS

R = random.Random

NVLINK = {"H100": "NV18", "H800": "NV8", "A100": "NV12", "A800": "NV8", "H200": "NV18", "B200": "NV18"}


def _nccl_table(r: R) -> str:
    rows = ["#       size         count      type   redop    root     time   algbw   busbw #wrong"]
    size = 2 ** r.randint(20, 24)
    top = 2 ** r.randint(30, 33)
    busbw = r.uniform(5, 380)
    while size <= top:
        share = min(1.0, 0.25 + 0.75 * (size / top))
        bw = busbw * share * r.uniform(0.95, 1.02)
        algbw = bw / 1.75
        time_us = size / (algbw * 1e3) if algbw else 0
        rows.append(f"  {size:>10}  {size // 4:>12}     float     sum      -1  {time_us:>7.0f}  {algbw:6.2f}  {bw:6.2f}      0")
        size *= r.choice([2, 4])
    rows.append(f"# Avg bus bandwidth    : {busbw * r.uniform(0.6, 0.8):.2f}")
    return "\n".join(rows)


def nccl_tests(r: R, lang: str) -> str:
    gpu, nodes = r.choice(BIG_GPUS), r.choice([1, 1, 2, 4])
    fabric = r.choice(["8x 400G IB", "8x NDR 400G", "4x 200G HDR", "2x 100G RoCE", "8x 200G RoCE"])
    command = f"all_reduce_perf -b 8 -e {r.choice(['1G', '4G', '8G'])} -f 2 -g {r.choice([1, 8])}"
    if lang == "zh":
        lead = r.choice([
            f"{nodes} 台 8 卡 {gpu}（每台 {fabric}）跑 {command}，结果如下，busbw 正常吗？",
            f"新到的 {gpu} 机器跑 nccl-tests，这个带宽是不是太低了",
            f"{nodes}机{nodes * 8}卡 {gpu}，all_reduce_perf 最后几行：",
        ])
    else:
        lead = r.choice([
            f"{nodes} node(s) x 8 {gpu}, {fabric} per node. {command} gives this, is busbw ok?",
            f"brand new {gpu} box, nccl-tests output below. seems low?",
            f"multi-node all_reduce_perf on {nodes * 8} {gpu}s, single node was fine:",
        ])
    return f"{lead}\n{_nccl_table(r)}"


def topology(r: R, lang: str) -> str:
    gpu = r.choice(["H100", "A100", "A800", "H800", "L40S", "4090", "A100 PCIe"])
    n = 8 if gpu in NVLINK else r.choice([4, 8])
    link = NVLINK.get(gpu)
    broken = {(i, j) for i in range(n) for j in range(n) if r.random() < 0.05}
    header = "        " + "".join(f"GPU{i:<5}" for i in range(n)) + "NIC0    CPU Affinity    NUMA Affinity"
    lines = [header]
    for i in range(n):
        cells = []
        for j in range(n):
            if i == j:
                cells.append(" X    ")
            elif link and (i, j) not in broken and (j, i) not in broken:
                cells.append(f"{link:<6}")
            else:
                cells.append(f"{'PIX' if i // 2 == j // 2 else ('NODE' if i // (n // 2) == j // (n // 2) else 'SYS'):<6}")
        numa = 0 if i < n // 2 else 1
        cpus = f"{numa * 32}-{numa * 32 + 31}"
        lines.append(f"GPU{i}    {''.join(cells)}{'PIX' if i == 0 else 'NODE':<8}{cpus:<16}{numa}")
    if lang == "zh":
        lead = r.choice([f"{n} 卡 {gpu} 机器 nvidia-smi topo -m 是这样，正常吗？", f"{gpu} 单机多卡训练扩展很差，topo 如下，问题在哪",
                         f"新机器的 topo 帮忙看下（{n} 张 {gpu}）"])
    else:
        lead = r.choice([f"nvidia-smi topo -m on our {n}x {gpu} server, is the wiring right?", f"DDP scales badly on this {n}x {gpu} box. topo below:",
                         f"is this topology normal for {n} {gpu}s?"])
    return f"{lead}\n```\n" + "\n".join(lines) + "\n```"


def xid(r: R, lang: str) -> str:
    code = r.choice([13, 31, 43, 45, 48, 61, 63, 64, 74, 79, 92, 94, 95, 119])
    bus = f"0000:{r.randint(16, 250):02x}:00"
    stamp = r.uniform(1e5, 5e6)
    pid = r.randint(1000, 99999)
    text = {79: "GPU has fallen off the bus.", 48: "An uncorrectable double bit error (DBE) has been detected on GPU",
            74: "NVLink: fatal error detected on link 3", 13: "Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0)"}.get(code, "Ch 00000008")
    log = f"[{stamp:.3f}] NVRM: Xid (PCI:{bus}): {code}, pid={pid}, name=python, {text}"
    if r.random() < 0.5:
        log += f"\n[{stamp + 0.001:.3f}] NVRM: GPU {bus}.0: GPU has fallen off the bus."
    lead = r.choice(["训练挂了，dmesg 里有这个，怎么办？", f"节点上报 Xid {code}，这卡还能用吗", "这个报错是什么意思："]) if lang == "zh" else \
        r.choice(["training crashed and dmesg shows this, what now?", f"node keeps logging Xid {code}, is the GPU dead?", "what does this mean:"])
    return f"{lead}\n{log}"


def oom(r: R, lang: str) -> str:
    total = r.choice([23.65, 39.39, 79.15, 79.35, 93.0, 139.8])
    want = r.choice([0.5, 1.0, 2.0, 3.91, 7.81, 16.0])
    free = round(r.uniform(0.1, 2.5), 2)
    used = round(total - free - r.uniform(0.5, 3), 2)
    model = r.choice(MODELS)
    trace = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {want:.2f} GiB. GPU {r.randint(0, 7)} has a total capacity of "
             f"{total:.2f} GiB of which {free:.2f} GiB is free. Of the allocated memory {used:.2f} GiB is allocated by PyTorch, and "
             f"{r.uniform(0.1, 2):.2f} GiB is reserved by PyTorch but unallocated.")
    detail = f"seq_len {r.choice([2048, 4096, 8192, 16384])}, per_device_batch {r.choice([1, 2, 4, 8, 16])}"
    if lang == "zh":
        lead = r.choice([f"{r.choice(['LoRA', '全参', 'QLoRA'])}微调 {model}，一跑就 OOM：", f"{model} 训练到一半爆显存了", "又 OOM 了，怎么办"])
    else:
        lead = r.choice([f"fine-tuning {model} with {r.choice(['LoRA', 'full FT', 'QLoRA'])}, OOM right away:", f"{model} OOMs mid-epoch", "getting this OOM:"])
    return f"{lead}\n{trace}\n{detail}"


def watchdog(r: R, lang: str) -> str:
    seq, timeout = r.randint(100, 90000), r.choice([600000, 1800000])
    op = r.choice(["ALLREDUCE", "ALLGATHER", "_REDUCE_SCATTER_BASE", "BROADCAST"])
    log = (f"[Rank {r.randint(0, 255)}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={r.randint(1, 10**8)}, "
           f"Timeout(ms)={timeout}) ran for {timeout + r.randint(10, 900)} milliseconds before timing out.")
    lead = r.choice([f"多机训练跑了 {r.randint(2, 40)} 小时报这个：", "NCCL 超时了，啥原因", "卡住然后报错："]) if lang == "zh" else \
        r.choice([f"multi-node job died after {r.randint(2, 40)} hours with:", "NCCL timeout, why?", "job hangs then this:"])
    return f"{lead}\n{log}"


def nccl_warn(r: R, lang: str) -> str:
    ip = f"10.{r.randint(0, 9)}.{r.randint(0, 255)}.{r.randint(2, 254)}"
    log = r.choice([
        f"NCCL WARN NET/IB : Got completion from peer {ip}<{r.randint(1024, 65535)}> with error {r.choice([5, 12, 13])}, opcode 0, len 0, "
        f"vendor err {r.choice([129, 244, 81])} (Recv)",
        f"NCCL INFO NET/Socket : Using [0]eth0:{ip}<0>\nNCCL INFO Using network Socket",
        f"NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\nNCCL INFO transport/net_ib.cc:{r.randint(300, 900)} -> 2",
    ])
    lead = r.choice(["多机训练报这个，什么意思", "IB 集群上特别慢，NCCL_DEBUG=INFO 看到：", "帮忙看下这个日志"]) if lang == "zh" else \
        r.choice(["getting this on multi node:", "slow on our IB cluster, NCCL_DEBUG=INFO shows:", "what does this log mean"])
    return f"{lead}\n{log}"


def smi_rows(r: R, lang: str) -> str:
    gpu = r.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S", "NVIDIA A800-SXM4-80GB"])
    rows = []
    for i in range(r.choice([2, 4, 8])):
        temp, watts, mem = r.randint(30, 89), r.randint(60, 700), r.randint(1000, 81000)
        rows.append(f"|   {i}  {gpu:<24} On  | 00000000:{16 + i * 16:02X}:00.0 Off |                    0 |\n"
                    f"| N/A   {temp}C    P0   {watts}W / 700W |  {mem}MiB / 81559MiB |    {r.choice([0, 35, 64, 100])}%      Default |")
    lead = r.choice(["nvidia-smi 显示利用率很高但训练很慢：", "这几张卡温度正常吗", "功耗好像上不去，nvidia-smi 如下"]) if lang == "zh" else \
        r.choice(["nvidia-smi says busy but the job is slow:", "are these temps ok?", "power seems capped, nvidia-smi:"])
    return f"{lead}\n" + "\n".join(rows)


def launch(r: R, lang: str) -> str:
    model, nodes, gpus = r.choice(MODELS), r.choice([1, 2, 4, 16]), r.choice([4, 8])
    command = r.choice([
        f"torchrun --nnodes {nodes} --nproc_per_node {gpus} --rdzv_backend c10d --rdzv_endpoint node0:29500 train.py --model {model} "
        f"--bf16 --micro_batch {r.choice([1, 2, 4])} --grad_accum {r.choice([4, 8, 16])}",
        f"deepspeed --num_nodes {nodes} --num_gpus {gpus} train.py --deepspeed ds_zero{r.choice([2, 3])}.json --model_name_or_path {model}",
        f"srun -N {nodes} --gpus-per-node={gpus} --ntasks-per-node={gpus} python pretrain.py --tp {r.choice([1, 2, 4, 8])} --pp {r.choice([1, 2, 4])}",
    ])
    lead = r.choice([f"用这个命令在 {nodes * gpus} 张卡上训练，吞吐很低，哪里有问题？", "这样启动对吗", "这个配置大概要跑多久"]) if lang == "zh" else \
        r.choice([f"launching like this on {nodes * gpus} GPUs, throughput is poor, why?", "is this launch right?", "how long would this take?"])
    return f"{lead}\n$ {command}"


def ds_config(r: R, lang: str) -> str:
    config = {
        "train_micro_batch_size_per_gpu": r.choice([1, 2, 4, 8]),
        "gradient_accumulation_steps": r.choice([1, 4, 8, 16]),
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": r.choice([1, 2, 3]), "offload_optimizer": {"device": r.choice(["cpu", "none"])}, "overlap_comm": r.choice([True, False])},
    }
    model, gpu = r.choice(MODELS), r.choice(BIG_GPUS + ["4090", "L40S"])
    lead = r.choice([f"{model} 在 8 张 {gpu} 上用这个 DeepSpeed 配置，显存够吗？", "这个 ds_config 有什么问题", "ZeRO 配置如下，为什么这么慢"]) if lang == "zh" else \
        r.choice([f"{model} on 8x {gpu} with this DeepSpeed config, will it fit?", "anything wrong with this ds_config?", "ZeRO config below, why so slow?"])
    return f"{lead}\n```json\n{json.dumps(config, indent=2)}\n```"


def step_times(r: R, lang: str) -> str:
    base, every = r.uniform(0.4, 3.0), r.choice([50, 100, 200, 500])
    start = r.randint(100, 5000) // every * every
    lines = [f"step {s} | {base * r.uniform(0.97, 1.03):.2f}s" for s in range(start, start + 3)]
    lines.append(f"step {start + every} | {base * r.uniform(15, 40):.1f}s")
    lines.append(f"step {start + every + 1} | {base:.2f}s")
    lead = r.choice([f"每 {every} 步就有一次很慢，正常吗？", "step 时间周期性飙高："]) if lang == "zh" else \
        r.choice([f"every ~{every} steps there's a huge spike:", "periodic slow steps, log:"])
    tail = r.choice(["save_interval 是 " + str(every), ""]) if lang == "zh" else r.choice([f"save_interval is {every}.", ""])
    return f"{lead}\n" + "\n".join(lines) + (f"\n{tail}" if tail else "")


TEMPLATES: tuple[Callable[[R, str], str], ...] = (nccl_tests, topology, xid, oom, watchdog, nccl_warn, smi_rows, launch, ds_config, step_times)


def pasted(r: R, lang: str) -> str:
    """One question with a pasted artefact, in lang ("zh" or "en")."""
    return r.choice(TEMPLATES)(r, lang)
