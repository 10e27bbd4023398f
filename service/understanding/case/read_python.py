"""Python pasted as code: the serving engine or trainer it imports and the arguments it builds one with.

`from vllm import LLM; LLM("Qwen/Qwen2.5-7B", gpu_memory_utilization=0.9)` is a vLLM job as much as `vllm serve` is: the
module is read with the standard parser (ast), never executed. Imports name the engine or launcher (the same names the
launch reader gives); the calls that build an engine (`LLM(...)`, `EngineArgs(...)`, `sgl.Engine(...)`) give the model
(first positional string or `model=`) and every keyword the settings vocabulary knows (tensor_parallel_size,
max_model_len, gpu_memory_utilization...). A snippet that does not parse gives nothing.
"""

from __future__ import annotations

import ast

from service.understanding.case.model import Artefact, Fact
from service.understanding.case.readers import line_of, reader
from service.understanding.case.settings import read_setting

MAX_SOURCE = 20_000  # characters parsed: a pasted script, not a repository
IMPORTED_ENGINES = {"vllm": "vllm", "sglang": "sglang", "lmdeploy": "lmdeploy", "tensorrt_llm": "tensorrt-llm", "llama_cpp": "llama.cpp",
                    "ollama": "ollama"}
IMPORTED_LAUNCHERS = {"deepspeed": "deepspeed", "accelerate": "accelerate", "trl": "trl", "llamafactory": "llamafactory", "axolotl": "axolotl"}
# Calls that build a serving engine or its arguments: what they are given is the job's setting.
ENGINE_BUILDERS = {"LLM", "AsyncLLMEngine", "LLMEngine", "EngineArgs", "AsyncEngineArgs", "Engine", "pipeline", "TurbomindEngineConfig",
                   "PytorchEngineConfig"}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _literal(node: ast.AST):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (str, int, float, bool)) else None


@reader("python", kinds=("code",))
def read_python(artefact: Artefact) -> list[Fact]:
    try:
        tree = ast.parse(artefact.text[:MAX_SOURCE])
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    facts: list[Fact] = []

    def add(name: str, value, needle: str) -> None:
        line, quote = line_of(artefact, needle)
        facts.append(Fact(name=name, value=value, line=line, quote=quote[:200], parser="python"))

    seen: set[str] = set()
    for node in ast.walk(tree):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        for module in modules:
            top = module.split(".")[0]
            for table, fact in ((IMPORTED_ENGINES, "engine"), (IMPORTED_LAUNCHERS, "launcher")):
                if top in table and fact not in seen:
                    seen.add(fact)
                    add(fact, table[top], top)
        if isinstance(node, ast.Call) and _name(node.func) in ENGINE_BUILDERS:
            first = _literal(node.args[0]) if node.args else None
            if isinstance(first, str) and "/" in first and "model" not in seen:
                seen.add("model")
                add("model", first, first)
            for keyword in node.keywords:
                value = _literal(keyword.value) if keyword.arg else None
                if value is None:
                    continue
                if keyword.arg == "model" and isinstance(value, str) and "model" not in seen:
                    seen.add("model")
                    add("model", value, value)
                    continue
                line, quote = line_of(artefact, keyword.arg)
                fact = read_setting(keyword.arg, value, line=line, quote=quote, parser="python")
                if fact is not None:
                    facts.append(fact)
    return facts
