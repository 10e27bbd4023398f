"""Split a message into the user's own prose and the artefacts they pasted.

Line by line, never by one pattern over the whole text: fenced blocks are artefacts whole; outside fences a
line is a command (a launcher or a flag continuation), a log line (traceback, exception, NCCL, rank or
timestamp prefixes), a tool's output (nvidia-smi tables, topology matrices, nccl-tests rows, ibstat), or
the start of a JSON object (read until its braces balance) or of a YAML mapping (two or more `key: value`
lines). Everything else is prose. A prose line that carries an error after the user's words ("训练时报错
torch.cuda.OutOfMemoryError: ...") is cut where the error starts. Every pattern here runs on one line of
bounded length, so the split is linear in the message.
"""

from __future__ import annotations

import re

from service.understanding.case.act import act_of
from service.understanding.case.model import Artefact, ArtefactKind

MAX_LINE = 2000  # characters of a line the patterns look at; the rest of a very long line is kept but not scanned
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
CJK = re.compile(r"[\u4e00-\u9fff]")
LAUNCHERS = frozenset("""deepspeed torchrun python python3 accelerate llamafactory-cli vllm trl axolotl srun sbatch salloc mpirun mpiexec
docker kubectl nvidia-smi text-generation-launcher ollama pip pip3 bash sh swift xtuner tune litgpt composer colossalai lmdeploy
trtllm-build trtllm-serve llama-server llama-cli ./main ./server nohup sudo export conda torch.distributed.launch dcgmi ibstat
ibv_devinfo ib_write_bw all_reduce_perf ./build/all_reduce_perf nccl-tests sglang helm""".split())
ENV_ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
PROMPT = re.compile(r"^\s*(?:\$|>>>|\(\w[\w.-]*\)\s*\$|[\w.-]+@[\w.-]+:[^$#\s]*[$#])\s+")
FLAG_LINE = re.compile(r"^\s*--?[A-Za-z][\w.-]*(?:[=\s]\S+)?(?:\s+--?[A-Za-z][\w.-]*(?:[=\s]\S+)?)*\s*\\?\s*$")
LOG_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]{1,300}\", line \d+|\^{3,}|~{3,}\^*"
    r"|[\w.]{0,80}(?:Error|Exception|Warning|Interrupt)\b(?::|$)"
    r"|\[?(?:rank|Rank|RANK)\s*\d+\]?:|\[default\d+\]:|\[\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}"
    r"|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b|[IWEF]\d{4} \d{2}:\d{2}|\(\w{1,40} pid=\d+\)"
    r"|torch\.distributed\.\S+|Killed\b|Bus error|Segmentation fault|Aborted \(core dumped\)|terminate called|what\(\):"
    r"|\w[\w-]{0,60}:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|ERROR)|CUDA error:|RuntimeError|ValueError|AssertionError|OSError)"
)
LOG_ANYWHERE = re.compile(r"NCCL (?:INFO|WARN|ERROR)|CUDA out of memory|OutOfMemoryError|Xid\b.{0,20}\d|uncorrectable ECC|ChildFailedError|exitcode\s*:")
TOOL_LINE = re.compile(
    r"^\s*(?:[|+][-=+|\s]{3,}|\|.{0,200}(?:NVIDIA-SMI|Driver Version|CUDA Version|MiB\s*/|Default|N/A|Processes|GPU\s+Name|Fan\s+Temp)"
    r"|GPU\d+\s+(?:X|NV\d+|SYS|PIX|PHB|PXB|NODE)\b|(?:GPU\d+\s+){2,}|mlx\d_\d+\s+(?:SYS|PIX|PHB|PXB|NODE|X)\b|Legend:|\s*X\s+=\s+Self"
    r"|#\s+size\s+count|#\s+Avg bus bandwidth|#\s+Out of bounds|\d+\s+\d+\s+(?:float|half|bfloat16|int8|double)\s+(?:sum|prod|max|min|avg|none)"
    r"|CA '|CA type:|Number of ports:|Port \d+:|State:\s|Physical state:|Rate:\s|Base lid:|Link layer:|hca_id:|transport:|fw_ver:"
    r"|\|\s*(?:Diagnostic|Deployment|Integration|Hardware|Stress|Blacklist|GPU Memory|PCIe|Pulse Test|Targeted|Memory Bandwidth)\b)"
)
NVIDIA_SMI_DATE = re.compile(r"^\s*(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) \w{3}\s+\d+ \d{2}:\d{2}:\d{2} \d{4}\s*$")
YAML_KEY = re.compile(r"^\s*(?:-\s+)?[A-Za-z_][\w.\-]{0,80}:(?:\s+\S.{0,300})?\s*$")
YAML_ITEM = re.compile(r"^\s*-\s+\S")
VERSION = re.compile(r"^v?\d+\.\d+(?:\.\w+)*$")
# An error's opening inside a line that starts with the user's own words.
INLINE_ERROR = re.compile(
    r"(?:\b[\w.]{0,60}(?:Error|Exception)\b:|\bTraceback \(most|\bNCCL (?:INFO|WARN|ERROR)\b|\bCUDA out of memory\b|\bCUDA error:|\bWatchdog caught)")


def _kind_of_block(lines: list[str], hint: str) -> ArtefactKind:
    hint = hint.lower()
    if hint in ("json", "jsonc"):
        return "json"
    if hint in ("yaml", "yml"):
        return "yaml"
    if hint in ("bash", "sh", "shell", "console", "zsh"):
        return "command"
    text = "\n".join(lines).strip()
    if text.startswith("{") or text.startswith("["):
        return "json"
    scored = {"tool_output": sum(bool(TOOL_LINE.match(line[:MAX_LINE])) for line in lines),
              "log": sum(bool(LOG_LINE.match(line[:MAX_LINE]) or LOG_ANYWHERE.search(line[:MAX_LINE])) for line in lines),
              "command": sum(is_command(line) or bool(FLAG_LINE.match(line[:MAX_LINE])) for line in lines),
              "yaml": sum(bool(YAML_KEY.match(line[:MAX_LINE])) for line in lines)}
    best = max(scored, key=scored.get)
    if scored[best] == 0:
        return "code"
    if best == "yaml" and scored["yaml"] < max(2, len([line for line in lines if line.strip()]) // 2):
        return "code" if not scored["log"] else "log"
    return best  # type: ignore[return-value]


def first_token(line: str) -> str:
    """The program a command line runs: past a shell prompt, `sudo`/`nohup` and VAR=value assignments."""
    line = PROMPT.sub("", line[:MAX_LINE], count=1).strip()
    for token in line.split()[:8]:
        if ENV_ASSIGN.match(token) or token in ("sudo", "nohup", "time", "exec"):
            continue
        return token
    return ""


def is_command(line: str) -> bool:
    if CJK.search(line[:MAX_LINE]):
        return False
    head = first_token(line)
    if not head:
        return False
    base = head.rsplit("/", 1)[-1]
    if head in LAUNCHERS or base in LAUNCHERS:
        rest = line.split()
        # "vllm    0.2.7" or "torch 2.1.0": a line of `pip list`, not a command
        return not (len(rest) >= 2 and rest[0] == head and VERSION.match(rest[1]))
    stripped = line.strip()
    # "CUDA_VISIBLE_DEVICES=0,1 python ...": an assignment followed by a program; a lone assignment line counts too.
    return bool(ENV_ASSIGN.match(stripped.split()[0])) if stripped and stripped.split() else False


def _json_end(lines: list[str], start: int) -> int | None:
    """The index after the line where the object opened at `start` closes, or None when it never does."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, min(len(lines), start + 400)):
        for ch in lines[index][:MAX_LINE]:
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    return index + 1
    return None


def split_message(text: str) -> tuple[list[tuple[int, str]], list[Artefact]]:
    """(prose lines, artefacts): the user's own lines with their 1-based line numbers, and what they pasted, in order."""
    lines = text.splitlines()
    prose: list[tuple[int, str]] = []
    artefacts: list[Artefact] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        head = line[:MAX_LINE]
        fence = FENCE.match(head)
        if fence:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(fence.group(1)[:3])), len(lines))
            body = lines[i + 1 : end]
            if any(b.strip() for b in body):
                artefacts.append(Artefact(kind=_kind_of_block(body, fence.group(2)), text="\n".join(body), first_line=i + 2, fenced=True))
            i = end + 1
            continue
        stripped = head.strip()
        if not stripped:
            i += 1
            continue
        if is_command(head) or (FLAG_LINE.match(head) and artefacts and artefacts[-1].kind == "command"):
            j = i
            while j + 1 < len(lines) and (lines[j].rstrip().endswith("\\") or FLAG_LINE.match(lines[j + 1][:MAX_LINE])):
                j += 1
            artefacts.append(Artefact(kind="command", text="\n".join(lines[i : j + 1]), first_line=i + 1))
            i = j + 1
            continue
        if stripped.startswith("{") and not CJK.search(stripped[:1]):
            end = _json_end(lines, i)
            if end is not None and end - i >= 1:
                artefacts.append(Artefact(kind="json", text="\n".join(lines[i:end]), first_line=i + 1))
                i = end
                continue
        if TOOL_LINE.match(head) or NVIDIA_SMI_DATE.match(head):
            j = i
            while j + 1 < len(lines) and (TOOL_LINE.match(lines[j + 1][:MAX_LINE]) or not lines[j + 1].strip() and j + 2 < len(lines)
                                          and TOOL_LINE.match(lines[j + 2][:MAX_LINE])):
                j += 1
            artefacts.append(Artefact(kind="tool_output", text="\n".join(lines[i : j + 1]), first_line=i + 1))
            i = j + 1
            continue
        if not CJK.search(head) and (LOG_LINE.match(head) or LOG_ANYWHERE.search(head) and act_of(head) == "none"):
            j = i
            while j + 1 < len(lines) and not CJK.search(lines[j + 1][:MAX_LINE]) and lines[j + 1].strip() and (
                    LOG_LINE.match(lines[j + 1][:MAX_LINE]) or LOG_ANYWHERE.search(lines[j + 1][:MAX_LINE]) or lines[j + 1].startswith((" ", "\t"))
                    or _wrapped(lines[j], lines[j + 1])):
                j += 1
            _append_log(artefacts, lines[i : j + 1], i + 1)
            i = j + 1
            continue
        if YAML_KEY.match(head) and not CJK.search(head) and i + 1 < len(lines) and (YAML_KEY.match(lines[i + 1][:MAX_LINE]) or YAML_ITEM.match(lines[i + 1][:MAX_LINE])):
            j = i
            while j + 1 < len(lines) and not CJK.search(lines[j + 1][:MAX_LINE]) and (
                    YAML_KEY.match(lines[j + 1][:MAX_LINE]) or YAML_ITEM.match(lines[j + 1][:MAX_LINE]) or lines[j + 1].startswith(("  ", "\t"))):
                j += 1
            artefacts.append(Artefact(kind="yaml", text="\n".join(lines[i : j + 1]), first_line=i + 1))
            i = j + 1
            continue
        inline = INLINE_ERROR.search(head)
        if inline and inline.start() > 0 and head[: inline.start()].strip():
            prose.append((i + 1, head[: inline.start()].rstrip(" ：:，,")))
            _append_log(artefacts, [line[inline.start():]], i + 1)
            i += 1
            continue
        if inline and inline.start() == 0:
            _append_log(artefacts, [line], i + 1)
            i += 1
            continue
        prose.append((i + 1, line))
        i += 1
    return prose, artefacts


CONTINUES_MID_NUMBER = re.compile(r"^\s*[\d)\]}]")


def _wrapped(line: str, following: str) -> bool:
    """A log line a terminal or an editor wrapped: it breaks after an opening bracket or a comma, or the next starts mid-number."""
    return line.rstrip().endswith(("(", "[", "{", ",")) or bool(CONTINUES_MID_NUMBER.match(following))


def _append_log(artefacts: list[Artefact], lines: list[str], first_line: int) -> None:
    """A log line right after a log artefact continues it (a traceback pasted around the user's comment stays whole)."""
    artefacts.append(Artefact(kind="log", text="\n".join(lines), first_line=first_line))
