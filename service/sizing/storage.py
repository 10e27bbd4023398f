"""Storage: the read throughput that keeps GPUs fed, and checkpoint size and write time.

For text LLMs the token stream is tiny (Llama 3 read ~11 MB/s of token ids on
16K GPUs); storage is sized by checkpoint bursts and by small-file IOPS for
image/audio data.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from service.catalog import Catalog
from service.errors import InputError, Problem
from service.sizing import references as ref
from service.sizing.base import ModelRef, SizingRequest, SizingResult
from service.sizing.shapes import resolve_shape
from service.sizing.work import Ledger, sig

# Llama 3 §3.3.4: 419 unexpected interruptions in 54 days on 16,384 H100s.
FAILURES_PER_GPU_HOUR = 419 / (54 * 24 * 16384)


class DataLoaderRequest(SizingRequest):
    tokens_per_second: float | None = Field(default=None, ge=0.001, le=1e12, description="training throughput of the whole job")
    samples_per_second: float | None = Field(default=None, ge=0.001, le=1e9)
    bytes_per_token: float = Field(default=4.0, ge=0.125, le=64, description="4 for int32 token ids, 2 for uint16")
    bytes_per_sample: float | None = Field(default=None, ge=1, le=1e10, description="for images/audio: average file size in bytes")
    files_per_sample: float = Field(default=1.0, ge=0.001, le=1e4, description="files opened per sample (1 for one-image-per-file datasets)")
    headroom: float = Field(default=2.0, ge=1, le=20, description="multiplier for bursts, augmentation re-reads and restarts")
    storage_read_gbps: float | None = Field(default=None, ge=0.001, le=1e5, description="what your storage delivers, GB/s")


class DataLoaderResult(SizingResult):
    tool: Literal["data-loader"] = "data-loader"
    read_mb_per_s: float
    read_mb_per_s_with_headroom: float
    files_per_second: float | None = None
    storage_read_gbps: float | None = None
    verdict: Literal["sufficient", "insufficient"] | None = None


def data_loader(req: DataLoaderRequest, catalog: Catalog) -> DataLoaderResult:
    ledger = Ledger()
    headroom = ledger.field(req, "headroom", "x", "bursts, augmentation and restarts")
    files = None
    if req.samples_per_second is not None and req.bytes_per_sample is not None:
        ledger.given("samples_per_second", req.samples_per_second, "samples/s")
        ledger.given("bytes_per_sample", req.bytes_per_sample, "bytes")
        rate = ledger.step("loader.bytes_per_s", "samples/s · bytes/sample", req.samples_per_second * req.bytes_per_sample, "B/s")
        per_file = ledger.field(req, "files_per_sample")
        files = ledger.step("loader.files_per_s", "samples/s · files/sample", req.samples_per_second * per_file, "files/s")
        if files > 5000:
            ledger.warn("small_files", f"{files:,.0f} file opens per second: pack samples into shards (WebDataset tar, Parquet, MosaicML streaming) instead of one file each.",
                        f"每秒需要打开 {files:,.0f} 个文件：请把样本打包成分片（WebDataset tar、Parquet、MosaicML streaming），不要一样本一文件。")
    elif req.tokens_per_second is not None:
        ledger.given("tokens_per_second", req.tokens_per_second, "tokens/s")
        per_token = ledger.field(req, "bytes_per_token", "bytes")
        rate = ledger.step("loader.bytes_per_s", "tokens/s · bytes/token", req.tokens_per_second * per_token, "B/s")
        ledger.assume("pretokenized", "Text is pre-tokenised (token ids on disk); raw text with on-the-fly tokenisation reads ~4 bytes per token as well but costs CPU.",
                      "假设文本已预先分词（磁盘上存 token id）；若读取原始文本并在线分词，读取量相近但会消耗 CPU。")
    else:
        raise InputError([Problem("tokens_per_second", "give tokens_per_second, or samples_per_second with bytes_per_sample",
                                  "请给出 tokens_per_second，或同时给出 samples_per_second 与 bytes_per_sample",
                                  allowed="tokens_per_second > 0, or samples_per_second and bytes_per_sample")])
    needed = rate * headroom
    ledger.cite(ref.LLAMA3.title, ref.LLAMA3.url)  # §3.3.1: token reads are tiny; checkpoints drive storage
    out: dict = {}
    if req.storage_read_gbps is not None:
        have = ledger.given("storage_read_gbps", req.storage_read_gbps, "GB/s")
        out = {"storage_read_gbps": have, "verdict": "sufficient" if have * 1e9 >= needed else "insufficient"}
    return DataLoaderResult(read_mb_per_s=sig(rate / 1e6), read_mb_per_s_with_headroom=sig(needed / 1e6),
                            files_per_second=sig(files) if files is not None else None, work=ledger.work(), **out)


class CheckpointRequest(ModelRef):
    contents: Literal["full", "weights"] = Field(default="full", description="full = weights + fp32 master + Adam moments (resumable); weights = 16-bit weights only")
    write_gbps: float = Field(default=2.0, ge=0.001, le=1e5, description="aggregate write bandwidth of the checkpoint target, GB/s")
    gpus: int = Field(default=8, ge=1, le=1_000_000)
    mtbf_hours: float | None = Field(default=None, ge=0.1, le=1e7, description="job mean time between failures; default from Llama 3's failure rate")


class CheckpointResult(SizingResult):
    tool: Literal["checkpoint"] = "checkpoint"
    model: str
    contents: Literal["full", "weights"]
    size_gb: float
    per_gpu_shard_gb: float
    write_seconds: float
    job_mtbf_hours: float
    optimal_interval_minutes: float = Field(description="Young/Daly: sqrt(2·write_time·MTBF)")
    overhead_fraction: float = Field(description="time lost to checkpoint writes plus expected re-computation after failures")


def checkpoint(req: CheckpointRequest, catalog: Catalog) -> CheckpointResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    contents = ledger.field(req, "contents")
    per_param = 14.0 if contents == "full" else 2.0
    size = ledger.step("checkpoint.bytes", f"P·{per_param:g} (bf16 weights 2 + fp32 master 4 + Adam 8)" if contents == "full" else "P·2", shape.params * per_param, "bytes")
    write_gbps = ledger.field(req, "write_gbps", "GB/s", "a parallel file system or a fast NFS tier")
    gpus = ledger.field(req, "gpus")
    write_s = ledger.step("checkpoint.write_seconds", "size / write bandwidth", size / (write_gbps * 1e9), "s")
    if req.mtbf_hours is not None:
        mtbf = ledger.given("mtbf_hours", req.mtbf_hours, "h")
    else:
        mtbf = ledger.derived("mtbf_hours", sig(1 / (FAILURES_PER_GPU_HOUR * gpus)), "h",
                              "Llama 3: 419 unexpected interruptions in 54 days on 16,384 GPUs, scaled to this GPU count")
        ledger.cite(ref.LLAMA3.title, ref.LLAMA3.url)
    interval_s = ledger.step("checkpoint.interval", "sqrt(2·write_time·MTBF) (Young/Daly)", math.sqrt(2 * write_s * mtbf * 3600), "s")
    overhead = write_s / interval_s + interval_s / 2 / (mtbf * 3600)
    ledger.step("checkpoint.overhead", "write/interval + interval/(2·MTBF)", overhead, "")
    ledger.cite(ref.DALY.title, ref.DALY.url)
    if write_s > 600:
        ledger.warn("slow_checkpoint", "Writing a checkpoint takes over 10 minutes: use asynchronous or sharded checkpointing (PyTorch DCP) or a faster tier.",
                    "写一次检查点超过 10 分钟：请使用异步或分片检查点（PyTorch DCP），或换更快的存储层。")
    return CheckpointResult(
        model=shape.name, contents=contents, size_gb=sig(size / 1e9), per_gpu_shard_gb=sig(size / 1e9 / gpus), write_seconds=sig(write_s),
        job_mtbf_hours=sig(mtbf), optimal_interval_minutes=sig(interval_s / 60), overhead_fraction=sig(overhead, 3), work=ledger.work(),
    )
