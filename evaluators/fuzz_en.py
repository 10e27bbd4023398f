"""English fuzz question templates: each returns one question, or a question and a follow-up changing one parameter."""

from __future__ import annotations

from evaluators.fuzz_vocab import (
    BIG_GPUS,
    GPUS,
    METHODS_EN,
    MODELS,
    PRECISIONS_EN,
    SIZES,
    R,
    _days_en,
    _model,
    _tokens_en,
)


def en_fit(r: R) -> tuple[str, ...]:
    g, m, meth = r.choice(GPUS), _model(r), r.choice(METHODS_EN)
    q = r.choice([f"can a {g} fine-tune {m} with {meth}?", f"Is one {g} enough for {meth} of {m}", f"will {m} fit on {r.randint(1, 8)}x {g} for {meth}?"])
    follow = r.choice(["what about QLoRA?", "and with 4 GPUs?", "what if I use INT4?", f"what about a {r.choice(GPUS)}?"])
    return (q, follow) if r.random() < 0.4 else (q,)


def en_sizing(r: R) -> tuple[str, ...]:
    g, m = r.choice(BIG_GPUS), r.choice(SIZES + MODELS[:8])
    q = r.choice(
        [
            f"how many {g} to pretrain {m} on {_tokens_en(r)} in {_days_en(r)}?",
            f"I need to train a {m} model on {_tokens_en(r)} within {_days_en(r)}; how many {g}s?",
            f"GPUs needed: {m}, {_tokens_en(r)}, deadline {_days_en(r)}, {g}",
        ]
    )
    follow = r.choice(["what about 16 GPUs?", "and if I have a month instead?", f"what if we use {r.choice(BIG_GPUS)}?"])
    return (q, follow) if r.random() < 0.4 else (q,)


def en_serving(r: R) -> tuple[str, ...]:
    m, g, users = _model(r), r.choice(GPUS), r.choice([10, 50, 100, 200, 500, 1000, 5000])
    ctx = r.choice(["4k", "8K", "32k", "128k", "16,000 tokens"])
    q = r.choice(
        [
            f"how many {g} to serve {m} for {users} concurrent users at {ctx} context?",
            f"serving {m} in {r.choice(PRECISIONS_EN)} to {users} users, what hardware?",
            f"we expect {users} simultaneous users on {m}, context {ctx}. how many GPUs?",
        ]
    )
    follow = r.choice(["what about INT4?", f"and {users * 2} users?", "what about 8k context?"])
    return (q, follow) if r.random() < 0.4 else (q,)


def en_compare(r: R) -> tuple[str, ...]:
    a, b = r.sample(GPUS, 2)
    q = r.choice([f"{a} vs {b} for training {_model(r)}?", f"compare {a} and {b}", f"which is better for inference, {a} or {b}?", f"is {a} faster than {b}?"])
    return (q,)


def en_claim(r: R) -> tuple[str, ...]:
    g, m, n = r.choice(BIG_GPUS), r.choice(MODELS + SIZES), r.choice([8, 16, 32, 64, 128, 256])
    q = r.choice(
        [
            f"vendor says {m} pretraining on {n} {g} takes {r.randint(2, 30)} days. realistic?",
            f"a supplier claims {n}x {g} can serve {m} to {r.choice([100, 1000, 10000])} users. true?",
            f"sales rep says one {r.choice(GPUS)} can fine-tune {m}. is that right?",
            f"they say we get {r.choice([2000, 5000, 20000])} tokens/s for {m} on {n} {g}. plausible?",
        ]
    )
    return (q,)


def en_spec(r: R) -> tuple[str, ...]:
    g = r.choice(GPUS)
    q = r.choice(
        [f"how much memory does the {g} have?", f"{g} specs", f"what's the BF16 TFLOPS of {g}?", f"{g} memory bandwidth and TDP?", f"does {g} support FP8?"]
    )
    return (q,)


def en_rent_buy(r: R) -> tuple[str, ...]:
    g, price = r.choice(BIG_GPUS + ["4090", "L40S"]), r.choice([1.2, 2, 2.5, 3.5, 4, 0.8])
    capex, years = r.choice(["$25k", "$30,000", "$8,000", "$250k for 8", "$40k"]), r.choice([2, 3, 4, 5])
    util = r.choice([30, 50, 70, 90])
    q = r.choice(
        [
            f"rent {g} at ${price}/hr vs buying at {capex}, {years} years?",
            f"should I buy or rent {r.choice([1, 4, 8, 16])} {g}? cloud is ${price} per GPU-hour, purchase {capex}, {util}% utilization",
            f"break-even utilization for {g}: rent ${price}/h, buy {capex}, depreciate over {years} years",
        ]
    )
    follow = r.choice([f"what if utilization is {r.choice([20, 40, 80])}%?", f"and over {years + 1} years?"])
    return (q, follow) if r.random() < 0.3 else (q,)


def en_kv(r: R) -> tuple[str, ...]:
    m = r.choice(MODELS)
    ctx, batch = r.choice(["4k", "8k", "32k", "128K", "100k"]), r.choice([1, 4, 8, 16, 32])
    q = r.choice(
        [f"KV cache size for {m} at {ctx} context, batch {batch}?", f"how much memory does the kv cache take for {m} with {batch} sequences of {ctx}?"]
    )
    return (q, "what about FP8 KV cache?") if r.random() < 0.3 else (q,)


def en_checkpoint(r: R) -> tuple[str, ...]:
    m = r.choice(MODELS + SIZES)
    q = r.choice(
        [
            f"how big is a training checkpoint for {m} with Adam?",
            f"checkpoint size of {m} in bf16?",
            f"how much disk for {m} weights in {r.choice(PRECISIONS_EN)}?",
        ]
    )
    return (q,)


def en_diag(r: R) -> tuple[str, ...]:
    m, g = _model(r), r.choice(GPUS)
    q = r.choice(
        [
            f"OOM when fine-tuning {m} on {r.randint(1, 8)}x {g}, batch {r.choice([1, 4, 8, 16])}",
            f"GPU utilization only {r.choice([20, 30, 40, 55])}% while training {m} on {g}, why?",
            f"CUDA out of memory loading {m} on a {g}, seq len {r.choice([2048, 4096, 8192])}",
            f"training {m} on {r.choice([8, 16, 32])} {g} gives only {r.choice([30, 35, 45])}% MFU, what's wrong?",
        ]
    )
    return (q,)


def en_preflight(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(BIG_GPUS), r.choice([8, 16, 32, 64])
    q = r.choice([f"pre-flight check before training {m} on {n} {g}: what should I test?", f"checklist before launching a {n}-GPU {g} job for {m}"])
    return (q,)


def en_budget(r: R) -> tuple[str, ...]:
    budget = r.choice(["$10k", "$50,000", "$200k", "$1M", "$5,000"])
    q = r.choice(
        [
            f"I have {budget} to fine-tune {_model(r)}, what GPUs should I get?",
            f"budget {budget}, want to serve {_model(r)} for {r.choice([50, 100, 500])} users. recommend hardware",
            f"what can I buy with {budget} for LLM training?",
        ]
    )
    return (q,)


def en_time_cost(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(BIG_GPUS + ["4090", "L40S"]), r.choice([1, 2, 4, 8, 16, 64])
    q = r.choice(
        [
            f"how long to fine-tune {m} on {r.choice(['100k', '50,000', '1M'])} samples of {r.choice(['512', '2k', '4096'])} "
            f"tokens for {r.choice([1, 2, 3])} epochs on {n} {g}?",
            f"how much does it cost to train {m} on {_tokens_en(r)} with {g} at ${r.choice([1.5, 2.5, 3])}/GPU-hour?",
            f"what does a year of power cost for {n}x {g} at ${r.choice([0.08, 0.12, 0.2])}/kWh?",
            f"tokens per second when training {m} on {n} {g} at {r.choice([30, 40, 50])}% MFU?",
            f"{n} {g}, {m}, {_tokens_en(r)}: how many days?",
        ]
    )
    follow = r.choice(["what about 2x the GPUs?", "and with 3 epochs?", f"what if MFU is {r.choice([25, 45])}%?"])
    return (q, follow) if r.random() < 0.3 else (q,)


def en_inference_speed(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(GPUS), r.choice([1, 2, 4, 8])
    q = r.choice(
        [
            f"{m} on {n}x {g}: tokens/s per user?",
            f"what latency per token for {m} on {n} {g} in {r.choice(PRECISIONS_EN)}?",
            f"vendor claims {r.choice([50, 100, 300])} tokens/s per user for {m} on one {g}, true?",
            f"time to first token for a {r.choice(['2k', '8k', '32k'])} prompt on {m} with {n} {g}?",
            f"we need p95 latency under {r.choice([50, 100, 200])} ms per token for {m}, which GPU?",
        ]
    )
    return (q,)


def en_claim_compute(r: R) -> tuple[str, ...]:
    m = r.choice(MODELS[:12] + SIZES)
    q = r.choice(
        [
            f"is it true that training {m} on {_tokens_en(r)} needs {r.choice(['1e23', '3e22', '5e24'])} FLOPs?",
            f"blog says {m} took {r.choice(['100k', '1M', '2.5 million', '30,000'])} GPU-hours on {r.choice(BIG_GPUS)}. plausible?",
            f"someone claims {r.choice(BIG_GPUS)} is {r.choice([2, 3, 6, 9])}x faster than {r.choice(BIG_GPUS)} for training",
            f"our network is {r.choice(['100Gb ethernet', '200G RoCE', '25GbE', '400G InfiniBand'])}, enough for "
            f"{r.choice([16, 64, 256])} GPU training of {m}?",
        ]
    )
    return (q,)


def en_cluster(r: R) -> tuple[str, ...]:
    g, n = r.choice(BIG_GPUS), r.choice([16, 32, 64, 128, 256, 1024])
    q = r.choice(
        [
            f"design a {n}-GPU {g} cluster: network, storage, power?",
            f"how much power for {n} {g}s?",
            f"we have {n // 8} nodes of 8x {g}, what interconnect do we need?",
            f"embed {r.choice(['10M', '100 million', '500k'])} documents with a bge model on {r.choice([1, 4])} {r.choice(GPUS)}, how long?",
        ]
    )
    follow = r.choice(["what about 16 GPUs?", f"and {n * 2} GPUs?"])
    return (q, follow) if r.random() < 0.3 else (q,)


def en_odd_units(r: R) -> tuple[str, ...]:
    m, g = _model(r), r.choice(GPUS)
    q = r.choice(
        [
            f"{r.choice(['1.5e12', '1,500,000,000,000', '0.8T', '3 trillion'])} tokens, {m}, {r.choice(['1k', '512', '2,048'])} {r.choice(BIG_GPUS)}s: days?",
            f"rent {r.choice([2, 4, 8])}x {g} at {r.choice(['$1.89', '$0.49', '$12.5 per node-hour', '$2.10/GPU-hr'])} for "
            f"{r.choice(['300 hours', '2 weeks', '45 days', '1,000 GPU-hours'])}, total cost?",
            f"{m} with {r.choice(['128k', '131072', '1M', '32,768'])} tokens of context on {g}, how many concurrent sequences fit?",
            f"train {m} for {r.choice(['0.5', '1.5', '2.25'])} epochs over {r.choice(['250k', '1.2M', '80,000'])} samples, "
            f"avg {r.choice(['750', '1.1k', '3,000'])} tokens, on {r.choice([1, 2, 8])} {g}",
        ]
    )
    follow = r.choice(["and at half the price?", "what about 3x the data?", "double the context?"])
    return (q, follow) if r.random() < 0.35 else (q,)


def en_measured(r: R) -> tuple[str, ...]:
    m, g, n = _model(r), r.choice(BIG_GPUS + ["4090", "L40S", "A100 40G"]), r.choice([1, 4, 8, 16, 64])
    rate = r.choice(["900", "2,500", "9000", "45k", "120k", "3.5k"])
    q = r.choice(
        [
            f"training {m} on {n} {g}, throughput is only {rate} tokens/s, is that normal?",
            f"we get {rate} tokens/s per GPU fine-tuning {m} on {n}x {g}, too slow?",
            f"{n}x {g} pretraining {m}: measured {rate} tok/s. reasonable?",
        ]
    )
    return (q, "what MFU should I expect?") if r.random() < 0.25 else (q,)
