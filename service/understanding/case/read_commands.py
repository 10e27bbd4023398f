"""Launch commands: deepspeed, torchrun, accelerate launch, python -m ..., llamafactory-cli, vllm serve, SGLang, TGI, ollama.

The command is split with shlex (continuation lines joined); each `--flag value` goes through the settings
vocabulary. What a flag means beyond its value is read here: the program (training or serving engine), the model
given as a positional argument (`vllm serve MODEL`, `ollama run MODEL`), ZeRO from a config file's name
(`ds_z3_config.json`), --fsdp's options, --include's GPU list and CUDA_VISIBLE_DEVICES.
"""

from __future__ import annotations

import re
import shlex

from service.understanding.case.model import Artefact, Fact
from service.understanding.case.readers import line_of, reader
from service.understanding.case.settings import read_setting
from service.understanding.case.split import ENV_ASSIGN, PROMPT

ENGINES = {"vllm": "vllm", "vllm.entrypoints.openai.api_server": "vllm", "vllm.entrypoints.api_server": "vllm", "sglang.launch_server": "sglang",
           "text-generation-launcher": "tgi", "text-generation-inference": "tgi", "ollama": "ollama", "llama-server": "llama.cpp",
           "llama-cli": "llama.cpp", "lmdeploy": "lmdeploy", "trtllm-serve": "tensorrt-llm", "trtllm-build": "tensorrt-llm"}
TRAINERS = {"deepspeed": "deepspeed", "torchrun": "torchrun", "torch.distributed.launch": "torchrun", "torch.distributed.run": "torchrun",
            "accelerate": "accelerate", "llamafactory-cli": "llamafactory", "axolotl": "axolotl", "axolotl.cli.train": "axolotl", "swift": "swift",
            "xtuner": "xtuner", "tune": "torchtune", "litgpt": "litgpt", "colossalai": "colossalai", "trl": "trl", "composer": "composer"}
TRAIN_SCRIPT = re.compile(r"(?:^|/)(?:train|finetune|fine_tune|sft|pretrain|run_clm|run_sft|main|train_bash|run_pt|dpo|ppo|grpo)\w*\.py$", re.I)
ZERO_IN_NAME = re.compile(r"(?:zero|z|stage)[_-]?([0-3])(?![0-9])", re.I)
GPU_LIST = re.compile(r"^\d+(?:,\d+)*$")


LINE_CONTINUATION = re.compile(r"\\\s*\n")
NEGATIVE_NUMBER = re.compile(r"^-\d")


def tokens_of(text: str) -> list[str]:
    joined = LINE_CONTINUATION.sub(" ", text)
    joined = "\n".join(PROMPT.sub("", line, count=1) for line in joined.splitlines())
    try:
        return shlex.split(joined, comments=True)
    except ValueError:  # an unbalanced quote in a pasted command
        return joined.split()


def _fact(artefact: Artefact, name: str, value, needle: str) -> Fact:
    line, quote = line_of(artefact, needle)
    return Fact(name=name, value=value, line=line, quote=quote[:200], parser="launch")


@reader("launch", kinds=("command", "code"))
def read_command(artefact: Artefact) -> list[Fact]:
    return facts_from_tokens(tokens_of(artefact.text)[:2000], artefact)


def facts_from_tokens(tokens: list[str], artefact: Artefact) -> list[Fact]:
    """The facts of one argv: a shell command split by shlex, or a container's `args:` list from a YAML manifest."""
    facts: list[Fact] = []
    program: str | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if ENV_ASSIGN.match(token):
            name, _, value = token.partition("=")
            if name == "CUDA_VISIBLE_DEVICES" and GPU_LIST.match(value):
                facts.append(_fact(artefact, "visible_gpus", len(value.split(",")), token))
            elif name.startswith("NCCL_") or name.startswith("PYTORCH_") or name.startswith("TORCH_"):
                facts.append(_fact(artefact, "env_setting", token[:120], token))
            i += 1
            continue
        base = token.rsplit("/", 1)[-1]
        if program is None and (base in ENGINES or base in TRAINERS):
            program = base
            facts.append(_fact(artefact, "engine" if base in ENGINES else "launcher", ENGINES.get(base) or TRAINERS[base], token))
        elif token == "-m" and i + 1 < len(tokens):
            module = tokens[i + 1]
            if module in ENGINES or module in TRAINERS:
                program = module
                facts.append(_fact(artefact, "engine" if module in ENGINES else "launcher", ENGINES.get(module) or TRAINERS[module], module))
            i += 2
            continue
        elif token in ("serve", "run") and program in ("vllm", "ollama", "sglang") and i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
            facts.append(_fact(artefact, "model", tokens[i + 1], tokens[i + 1]))
            i += 2
            continue
        elif TRAIN_SCRIPT.search(token):
            facts.append(_fact(artefact, "script", base, token))
        elif token.startswith("-") and len(token) > 1 and not NEGATIVE_NUMBER.match(token):
            key, eq, inline = token.partition("=")
            value: str | None = inline if eq else None
            if value is None and i + 1 < len(tokens) and not (tokens[i + 1].startswith("-") and not NEGATIVE_NUMBER.match(tokens[i + 1])):
                if not ENV_ASSIGN.match(tokens[i + 1]):
                    value = tokens[i + 1]
                    i += 1
            facts.extend(_flag(artefact, key, value, token))
        i += 1
    return facts


def _flag(artefact: Artefact, key: str, value: str | None, token: str) -> list[Fact]:
    name = key.lstrip("-").replace("-", "_").lower()
    line, quote = line_of(artefact, token)
    made = []

    def add(fact: str, val) -> None:
        made.append(Fact(name=fact, value=val, line=line, quote=quote[:200], parser="launch"))

    if name in ("deepspeed", "deepspeed_config", "deepspeed_config_file") and value:
        add("deepspeed_config", value)
        stage = ZERO_IN_NAME.search(value.rsplit("/", 1)[-1])
        if stage:
            add("zero_stage_hint", int(stage.group(1)))
        if "offload" in value.lower():
            add("offload_hint", True)
        return made
    if name == "fsdp" and value:
        options = value.lower()
        add("fsdp_sharding_strategy", "full_shard" if "full_shard" in options else "shard_grad_op" if "shard_grad_op" in options else options[:40])
        if "offload" in options:
            add("fsdp_offload_params", True)
        return made
    if name == "include" and value:
        hosts = value.split("@")
        count = sum(len(h.split(":", 1)[1].split(",")) for h in hosts if ":" in h)
        if count:
            add("visible_gpus", count)
        return made
    if name == "gres" and value:
        match = re.search(r"gpu(?::[\w-]+)?:(\d+)", value)
        if match:
            add("gpus_per_node", int(match.group(1)))
        return made
    fact = read_setting(name, True if value is None else value, line=line, quote=quote, parser="launch")
    if fact is not None:
        made.append(fact)
    return made
